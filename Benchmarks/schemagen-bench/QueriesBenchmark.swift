import BenchModels
import DeterministicRandom
import Foundation
import SchemaRuntime

// `schemagen-bench queries [users] [messagesPerChat] [rounds]`: the richer queries of
// docs/Runtime.md (count, grouping, aggregates, distinct, relation filters, keyset pages,
// ordered-list moves), each beside the same result computed by hand from the arrays plain
// queries return. Rounds alternate the two; each line prints the medians and their ratio.

/// Median milliseconds of `rounds` runs of `ours` and of `hand`, alternated.
func compare<A, B>(_ name: String, rounds: Int, ours: () throws -> A, hand: () throws -> B, same: (A, B) -> Bool) rethrows {
    var mine: [Double] = [], theirs: [Double] = []
    let clock = ContinuousClock()
    func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }
    for _ in 0..<rounds {
        var a: A?, b: B?
        mine.append(milliseconds(try clock.measure { a = try ours() }))
        theirs.append(milliseconds(try clock.measure { b = try hand() }))
        precondition(same(a!, b!), "\(name): results differ")
    }
    let (m, t) = (mine.sorted()[rounds / 2], theirs.sorted()[rounds / 2])
    print(name.padding(toLength: 58, withPad: " ", startingAt: 0)
          + String(format: "%10.3f ms %10.3f ms %7.2fx", m, t, m / t))
}

func runQueriesBenchmark(users userCount: Int, messagesPerChat: Int, rounds: Int) throws {
    var random = SplitMix64(seed: 7)
    let messageCount = userCount * messagesPerChat
    print("schemagen-bench queries: users=\(userCount) chats=\(userCount) messages=\(messageCount) rounds=\(rounds)")
    print("step".padding(toLength: 58, withPad: " ", startingAt: 0) + "   SchemaGen    by hand    ratio")
    var context = Context()
    try (0..<userCount).map { User(id: $0, name: "user\($0)", age: Int.random(in: 18...80, using: &random)) }.save(to: &context)
    try (0..<userCount).map { chatID in
        Chat(id: chatID, title: "chat\(chatID)", users: .ids((0..<10).map { (chatID + $0 * 97) % userCount }),
             messages: .relation((0..<messagesPerChat).map { index in
                 Message(id: chatID * messagesPerChat + index, text: "m", timestamp: Int.random(in: 0..<1_000_000_000, using: &random),
                         author: .id(Int.random(in: 0..<userCount, using: &random)))
             }))
    }.save(to: &context)

    // 1. Count of a timestamp range holding 10% of messages.
    let tenth = 100_000_000
    compare("count messages in a timestamp range (10%)", rounds: rounds,
                ours: { Message.filter(\.timestamp >= tenth && \.timestamp < 2 * tenth, in: context).count() },
                hand: { Message.filter(\.timestamp >= tenth && \.timestamp < 2 * tenth, in: context).resolve().count }, same: ==)

    // 2. Messages per chat: every message, one group per chat.
    compare("messages per chat (group by relation, count)", rounds: rounds,
                ours: { Message.query(in: context).group(by: \.$chat).count().count },
                hand: { Dictionary(grouping: Message.queryAll(with: .ids, in: context).resolve(), by: { $0.$chat.id }).count }, same: ==)

    // 3. Average age of one chat's users.
    compare("average age of the users of a chat", rounds: rounds,
                ours: { Chat.query(5, in: context).related(\.$users).average(\.age) },
                hand: { () -> Double? in
                    let ages = Chat.query(5, in: context).with(\.$users).resolve()!.users!.map(\.age)
                    return Double(ages.reduce(0, +)) / Double(ages.count)
                }, same: ==)

    // 4. Distinct authors of 10% of messages.
    compare("distinct authors of 10% of messages", rounds: rounds,
                ours: { Set(Message.filter(\.timestamp < tenth, in: context).distinct(\.$author)) },
                hand: { Set(Message.filter(\.timestamp < tenth, in: context).with(.ids).resolve().map { $0.$author.id }) }, same: ==)

    // 5. Chats having a message matching a predicate (0.1% of messages).
    let rare = 1_000_000
    compare("chats with any message in a rare range (0.1%)", rounds: rounds,
                ours: { Set(Chat.filter(.any(\.$messages, where: \.timestamp < rare), in: context).resolve().map(\.id)) },
                hand: { () -> Set<Int> in
                    let chatIDs = Message.filter(\.timestamp < rare, in: context).with(.ids).resolve().compactMap { $0.$chat.id }
                    return Set(Chat.query(Array(Set(chatIDs)), in: context).resolve().map(\.id))
                }, same: ==)

    // 6. A page of 20 deep into the sorted messages: a cursor against an offset.
    let sorted = Message.query(in: context).sorted(by: \.timestamp)
    for depth in [messageCount / 100, messageCount / 2, messageCount * 9 / 10] {
        let before = sorted.limit(1, offset: depth - 1).resolve()[0]
        compare("page of 20 at depth \(depth): cursor vs offset", rounds: rounds,
                    ours: { sorted.after(before).limit(20).resolve().map(\.id) },
                    hand: { sorted.limit(20, offset: depth).resolve().map(\.id) }, same: ==)
    }

    // 7. 1,000 moves in a 1,000-entity ordered list: in place, against saving the edited id array.
    var lists = Context()
    try Chat(id: 0, title: "list", messages: .relation((0..<1000).map { Message(id: $0, text: "m", timestamp: $0, author: .id(0)) }))
        .save(to: &lists)
    var moves = SplitMix64(seed: 3)
    let pairs = (0..<1000).map { _ in (Int.random(in: 0..<1000, using: &moves), Int.random(in: 0..<1000, using: &moves)) }
    let chat = Chat(id: 0, title: "list")
    var ours = lists, hand = lists
    try compare("1000 moves in a 1000-message list", rounds: rounds,
                ours: { () -> [Int] in
                    var copy = ours
                    for (from, to) in pairs { try chat.move(\.$messages, from: from, to: to, in: &copy) }
                    ours = copy
                    return Chat.query(0, in: copy).with(.ids).resolve()!.$messages.ids!
                },
                hand: { () -> [Int] in
                    var copy = hand
                    for (from, to) in pairs {
                        var ids = Chat.query(0, in: copy).with(.ids).resolve()!.$messages.ids!
                        ids.insert(ids.remove(at: from), at: to)
                        try Chat(id: 0, title: "list", messages: .ids(ids)).save(to: &copy)
                    }
                    hand = copy
                    return Chat.query(0, in: copy).with(.ids).resolve()!.$messages.ids!
                }, same: ==)
}
