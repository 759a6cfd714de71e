import BenchModels
import DeterministicRandom
import Foundation
import SchemaRuntime

// The runtime benchmark of docs/Performance.md, on types generated from Bench.schema.
//
//   swift run -c release schemagen-bench [users] [messagesPerChat] [vocabulary]
//   swift run -c release schemagen-bench queries [users] [messagesPerChat] [rounds]   (QueriesBenchmark.swift)
//   swift run -c release schemagen-bench cold [users]   (ColdQueryBenchmark.swift: a process's first query)
//
// U users; U chats, each with 10 users (mutual many-to-many) and P messages (mutual
// one-to-many, cascade), each message with 8 words of text drawn from a vocabulary of V
// words (default 2,000; 20 makes every posting list long, as common words are in real
// text), a timestamp and a required one-way author. Prints one line per step with
// milliseconds.

if CommandLine.arguments.dropFirst().first == "cold" {
    try runColdQueryBenchmark(users: CommandLine.arguments.dropFirst(2).compactMap { Int($0) }.first ?? 10_000)
    exit(0)
}

if CommandLine.arguments.dropFirst().first == "queries" {
    let numbers = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
    try runQueriesBenchmark(users: numbers.first ?? 1000, messagesPerChat: numbers.dropFirst().first ?? 100,
                            rounds: numbers.dropFirst(2).first ?? 5)
    exit(0)
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let userCount = arguments.first ?? 1000
let messagesPerChat = arguments.dropFirst().first ?? 10
let vocabularySize = arguments.dropFirst(2).first ?? 2000
let usersPerChat = 10

var random = SplitMix64(seed: 42)
let vocabulary = (0..<vocabularySize).map { "word\($0)" }

func measure<T>(_ name: String, count: Int? = nil, _ body: () throws -> T) rethrows -> T {
    let clock = ContinuousClock()
    let start = clock.now
    let result = try body()
    let elapsed = clock.now - start
    let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
    let perItem = count.map { String(format: " (%.2f µs each)", milliseconds * 1000 / Double(max($0, 1))) } ?? ""
    print(name.padding(toLength: 56, withPad: " ", startingAt: 0) + String(format: "%10.2f ms", milliseconds) + perItem)
    return result
}

print("schemagen-bench: users=\(userCount) chats=\(userCount) messagesPerChat=\(messagesPerChat) messages=\(userCount * messagesPerChat) vocabulary=\(vocabularySize)")

// Data generation is not measured.
let users = (0..<userCount).map { User(id: $0, name: "user\($0)", age: Int.random(in: 18...80, using: &random)) }
let chats = (0..<userCount).map { chatID in
    Chat(
        id: chatID,
        title: "chat\(chatID)",
        users: .ids((0..<usersPerChat).map { (chatID + $0 * 97) % userCount }),
        messages: .relation((0..<messagesPerChat).map { index in
            let id = chatID * messagesPerChat + index
            return Message(
                id: id,
                text: (0..<8).map { _ in vocabulary.randomElement(using: &random)! }.joined(separator: " "),
                timestamp: Int.random(in: 0..<1_000_000_000, using: &random),
                author: .id(Int.random(in: 0..<userCount, using: &random))
            )
        })
    )
}

// The same data in plain dictionaries, the floor for the query and delete steps (not measured).
var floor = FloorStore(users: users, chats: chats)

var context = Context()
try measure("save users", count: userCount) { try users.save(to: &context) }
try measure("save chats with embedded messages", count: userCount * messagesPerChat) { try chats.save(to: &context) }
let nested = measure("nested query: 100 chats + messages + authors + users") {
    Chat.query(Array(0..<min(100, userCount)), in: context)
        .with(\.$messages) { $0.with(\.$author) }
        .with(\.$users)
        .resolve()
}
precondition(nested.count == min(100, userCount) && nested[0].messages?.count == messagesPerChat)
let floorNested = measure("  floor: the same nested query, plain dictionaries") { floor.nested(Array(0..<min(100, userCount))) }
precondition(floorNested.count == nested.count && floorNested[0].messages?.first?.author?.id == nested[0].messages?.first?.author?.id)

// Codable: the nested result (chats with their messages, authors and users) as JSON and back.
let json = try measure("encode the nested result as JSON") { try JSONEncoder().encode(nested) }
let decoded = try measure("decode it back") { try JSONDecoder().decode([Chat].self, from: json) }
precondition(decoded == nested)

// Index steps.
let inRange = measure("filter messages by timestamp range (10%), indexed") {
    Message.filter(\.timestamp < 100_000_000, in: context).resolve()
}
let ageThirty = measure("filter users by age == 30, indexed") {
    User.filter(\.age == 30, in: context).resolve()
}
// The fixed cost of a query: many small indexed lookups.
let lookups = measure("1000 queries: users by age == 30, indexed", count: 1000) {
    (0..<1000).reduce(0) { total, _ in total + User.filter(\.age == 30, in: context).resolve().count }
}
precondition(lookups == 1000 * ageThirty.count)
let byTime = measure("sort all messages by timestamp, indexed") {
    Message.query(in: context).sorted(by: \.timestamp).resolve()
}
// No index on the text: a sort of the values themselves (QueryList.stableSort).
let byText = measure("sort all messages by text, no index") {
    Message.query(in: context).sorted(by: \.text).resolve()
}
precondition(byText.count == byTime.count && zip(byText, byText.dropFirst()).allSatisfy { $0.text <= $1.text })
let firstByText = measure("first 20 messages by text, no index") {
    Message.query(in: context).sorted(by: \.text).limit(20).resolve()
}
precondition(firstByText.map(\.id) == byText.prefix(20).map(\.id))
// The page after a cursor in that order: every match sorted by (text, id), then cut.
let middle = byText[byText.count / 2]
let page = measure("page of 20 after a cursor, by text, no index") {
    Message.query(in: context).sorted(by: \.text).after(middle).limit(20).resolve()
}
precondition(page.count == 20 && page.allSatisfy { $0.text >= middle.text })
let firstTwo = vocabulary[0] + " " + vocabulary[1]
let matched = measure("full-text match of two words, ranked") {
    Message.filter(.string(\.text, matches: firstTwo), in: context).resolve()
}
let floorMatched = measure("  floor: the same full-text match") { floor.matching(firstTwo) }
precondition(Set(floorMatched.map(\.id)) == Set(matched.map(\.id)))
let scanned = measure("filter messages by timestamp range (10%), scan for comparison") {
    Message.query(in: context).filter(.string(\.text, notContains: "\u{1}")).filter(\.timestamp < 100_000_000).resolve()
}
print("  results: \(inRange.count) in range (scan: \(scanned.count)), \(ageThirty.count) aged 30, \(byTime.count) sorted, \(matched.count) matched")
precondition(inRange.count == scanned.count && byTime.count == userCount * messagesPerChat)
try measure("delete 100 chats (cascade to their messages)") {
    for chat in chats.prefix(100) { try chat.delete(from: &context) }
}
measure("  floor: the same delete, plain dictionaries") { floor.deleteChats(0..<min(100, userCount)) }
precondition(floor.messages.count == context.count(of: Message.self))
let remaining = (userCount - min(100, userCount)) * messagesPerChat

// One chat holding every message (a channel): a single-message write must cost the same
// whatever the length of the list it joins or leaves.
let channelSize = userCount * messagesPerChat
var channel = Context()
try Chat(id: 0, title: "channel", messages: .relation((0..<channelSize).map {
    Message(id: $0, text: "m", timestamp: $0, author: .id(0))
})).save(to: &channel)
try measure("append 1000 messages to a \(channelSize)-message chat, one save each", count: 1000) {
    for id in channelSize..<(channelSize + 1000) { try Message(id: id, text: "m", timestamp: id, chat: .id(0), author: .id(0)).save(to: &channel) }
}
let oldest = Array(0..<min(1000, channelSize))
let spread = Array(stride(from: 1000, to: channelSize, by: max(1, channelSize / 1000)).prefix(1000))
try measure("delete its \(oldest.count) oldest messages, one delete each", count: oldest.count) {
    for id in oldest { try Message(id: id, text: "", timestamp: 0).delete(from: &channel) }
}
try measure("delete \(spread.count) messages spread over it, one delete each", count: spread.count) {
    for id in spread { try Message(id: id, text: "", timestamp: 0).delete(from: &channel) }
}
precondition(channel.count(of: Message.self) == channelSize + 1000 - oldest.count - spread.count)

// Save cost per index kind: the same rows into entities that differ only in their index.
let rowCount = userCount * messagesPerChat
let rows = (0..<rowCount).map { (id: $0, value: Int.random(in: 0..<Int.max, using: &random), text: (0..<8).map { _ in vocabulary.randomElement(using: &random)! }.joined(separator: " ")) }
var costs = Context()
try measure("save \(rowCount) rows, no index", count: rowCount) { try rows.map { NoIndex(id: $0.id, value: $0.value, text: $0.text) }.save(to: &costs) }
try measure("save \(rowCount) rows, ordered index", count: rowCount) { try rows.map { OrderedIndexed(id: $0.id, value: $0.value, text: $0.text) }.save(to: &costs) }
try measure("save \(rowCount) rows, hash index", count: rowCount) { try rows.map { HashIndexed(id: $0.id, value: $0.value, text: $0.text) }.save(to: &costs) }
try measure("save \(rowCount) rows, unique index", count: rowCount) { try rows.map { UniqueIndexed(id: $0.id, value: $0.value, text: $0.text) }.save(to: &costs) }
try measure("save \(rowCount) rows, full-text index (8 words)", count: rowCount) { try rows.map { FullTextIndexed(id: $0.id, value: $0.value, text: $0.text) }.save(to: &costs) }
precondition(context.count(of: Message.self) == remaining)

// A copy is O(1); the first write to a table the copy shares duplicates that table once.
let snapshot = measure("copy context (value snapshot)") { context }
try measure("first delete after the copy (copies shared tables once)") {
    try chats[100 % userCount].delete(from: &context)
}
precondition(snapshot.count(of: Message.self) == remaining)
