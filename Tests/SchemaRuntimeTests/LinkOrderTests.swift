import ChatModels
import DeterministicRandom
import Foundation
import SchemaRuntime
import Testing

/// Ordered to-many editing (append, insert at, move, move from offsets, remove at, reorder)
/// against an array model: random operations, valid and not, on chats' user lists; after
/// each, both sides of the many-to-many must equal the model, and a refused call must leave
/// the context exactly as it was.
@Suite struct LinkOrderTests {
    /// Chats' user lists, and users' chat lists (the inverse, in the order links were made).
    struct Model {
        var users: [String: [String]] = [:]
        var chats: [String: [String]] = [:]

        /// Sets a chat's list, keeping the inverse lists as the link engine does: a newly
        /// linked user gets the chat appended, an unlinked one loses it.
        mutating func set(_ chat: String, _ list: [String]) {
            let old = users[chat] ?? []
            for user in old where !list.contains(user) { chats[user]?.removeAll { $0 == chat } }
            for user in list where !old.contains(user) { chats[user, default: []].append(chat) }
            users[chat] = list
        }
    }

    static func check(_ context: Context, _ model: Model, _ note: String) {
        for chat in Chat.query(in: context).with(\.$users).resolve() {
            #expect(chat.users!.map(\.id) == model.users[chat.id] ?? [], "\(note): \(chat.id)")
        }
        for user in User.query(in: context).with(\.$chats).resolve() {
            #expect(user.chats!.map(\.id) == model.chats[user.id] ?? [], "\(note): \(user.id)")
        }
    }

    @Test(arguments: 0..<6)
    func randomEditsMatchAnArrayModel(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var context = Context()
        var model = Model()
        let userIDs = (0..<10).map { "u\($0)" }
        for id in userIDs { try User(id: id, name: id).save(to: &context) }
        let chats = (0..<3).map { Chat(id: "c\($0)") }
        for chat in chats { try chat.save(to: &context) }
        var refused = 0

        for step in 0..<300 {
            let chat = chats.randomElement(using: &random)!
            let current = model.users[chat.id] ?? []
            // Positions a little outside the list too, so refusals are exercised.
            func position(_ extra: Int = 0) -> Int { Int.random(in: -1...(current.count + extra + 1), using: &random) }
            let ids = (0..<Int.random(in: 1...3, using: &random)).map { _ in userIDs.randomElement(using: &random)! }
            let before = context
            var expected: [String]?
            do {
                switch Int.random(in: 0..<6, using: &random) {
                case 0:
                    var list = current
                    for id in ids where !list.contains(id) { list.append(id) }
                    expected = list
                    try chat.append(ids, to: \.$users, in: &context)
                case 1:
                    let index = position()
                    if (0...current.count).contains(index) {
                        var unique: [String] = []
                        for id in ids where !unique.contains(id) { unique.append(id) }
                        var list = current.filter { !unique.contains($0) }
                        list.insert(contentsOf: unique, at: current[..<index].filter { !unique.contains($0) }.count)
                        expected = list
                    }
                    try chat.insert(ids, at: index, into: \.$users, in: &context)
                case 2:
                    let (from, to) = (position(), position())
                    if current.indices.contains(from), current.indices.contains(to) {
                        var list = current
                        list.insert(list.remove(at: from), at: to)
                        expected = list
                    }
                    try chat.move(\.$users, from: from, to: to, in: &context)
                case 3:
                    let offsets = IndexSet((0..<Int.random(in: 0...2, using: &random)).map { _ in Int.random(in: 0..<(current.count + 1), using: &random) })
                    let destination = position()
                    if offsets.allSatisfy(current.indices.contains), (0...current.count).contains(destination) {
                        // SwiftUI's documented behaviour of Array.move(fromOffsets:toOffset:).
                        let moving = offsets.map { current[$0] }
                        var list = current.enumerated().filter { !offsets.contains($0.offset) }.map(\.element)
                        list.insert(contentsOf: moving, at: destination - offsets.filter { $0 < destination }.count)
                        expected = list
                    }
                    try chat.move(\.$users, fromOffsets: offsets, toOffset: destination, in: &context)
                case 4:
                    let index = position(-1)
                    if current.indices.contains(index) {
                        var list = current
                        let removed = list.remove(at: index)
                        expected = list
                        #expect(try chat.remove(\.$users, at: index, in: &context) == removed)
                    } else {
                        try chat.remove(\.$users, at: index, in: &context)
                    }
                default:
                    var permutation = current.shuffled(using: &random)
                    if Bool.random(using: &random), !permutation.isEmpty { permutation[0] = ids[0] }
                    if Set(permutation) == Set(current), permutation.count == current.count { expected = permutation }
                    try chat.reorder(\.$users, as: permutation, in: &context)
                }
                guard let expected else {
                    Issue.record("step \(step): an invalid call did not throw")
                    continue
                }
                model.set(chat.id, expected)
            } catch let error as LinkOrderError {
                #expect(expected == nil, "step \(step): \(error)")
                #expect(try Snapshot(context) == Snapshot(before), "step \(step): a refused call changed the context")
                refused += 1
            }
            Self.check(context, model, "step \(step)")
        }
        #expect(refused > 10)
    }

    @Test func unlinkingFromARequiredInverseIsRefusedAndChangesNothing() throws {
        var context = Context()
        try User(id: "u", name: "U").save(to: &context)
        let chat = Chat(id: "c")
        try chat.save(to: &context)
        for index in 0..<3 { try Message(id: "m\(index)", text: "t", author: .id("u"), chat: .id("c")).save(to: &context) }
        try chat.move(\.$messages, from: 2, to: 0, in: &context)
        #expect(Chat.query("c", in: context).with(\.$messages).resolve()?.messages?.map(\.id) == ["m2", "m0", "m1"])
        let before = try Snapshot(context)
        // A message must keep its chat: unlinking it is refused, whole.
        #expect(throws: RequiredRelationViolation.self) { try chat.remove(\.$messages, at: 1, in: &context) }
        #expect(try Snapshot(context) == before)
        #expect(throws: LinkOrderError.notStored(entityName: "Chat", id: "nope")) {
            try Chat(id: "nope").move(\.$messages, from: 0, to: 0, in: &context)
        }
        #expect(throws: LinkOrderError.indexOutOfRange(relationName: "Chat.messages", index: 3, count: 3)) {
            try chat.move(\.$messages, from: 3, to: 0, in: &context)
        }
    }

    @Test(arguments: [RelationEncodingStrategy.plain, .keyedContainer])
    func anEditedOrderRoundTripsThroughCodable(strategy: RelationEncodingStrategy) throws {
        var context = Context()
        for index in 0..<6 { try User(id: "u\(index)", name: "n").save(to: &context) }
        let chat = Chat(id: "c", users: .ids((0..<6).map { "u\($0)" }))
        try chat.save(to: &context)
        try chat.move(\.$users, from: 0, to: 5, in: &context)
        try chat.insert(["u4"], at: 0, into: \.$users, in: &context)
        try chat.reorder(\.$users, as: ["u4", "u1", "u3", "u2", "u5", "u0"], in: &context)
        let encoder = JSONEncoder()
        encoder.relationEncodingStrategy = strategy
        let all = Chat.queryAll(with: .entities, .entities, in: context).resolve()
        var rebuilt = Context()
        try JSONDecoder().decode([Chat].self, from: encoder.encode(all)).save(to: &rebuilt)
        #expect(Chat.query("c", in: rebuilt).with(\.$users).resolve()?.users?.map(\.id) == ["u4", "u1", "u3", "u2", "u5", "u0"])
    }
}
