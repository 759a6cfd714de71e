import ChatModels
import DeterministicRandom
import Foundation
@_spi(SchemaStore) import SchemaRuntime
import Testing

/// Filters on related entities (to-one, to-many with any / all / none, link counts, nested),
/// each compared with the same condition checked by hand on entities resolved with their
/// relations, on random graphs with unlinked entities and links to entities never stored.
@Suite struct RelationFilterTests {
    static func randomGraph(seed: UInt64) throws -> Context {
        var random = SplitMix64(seed: seed)
        var context = Context()
        let userCount = 12, chatCount = 8
        for index in 0..<userCount {
            try User(id: "u\(index)", name: "n\(index % 3)", age: Int.random(in: 0..<60, using: &random)).save(to: &context)
        }
        for index in 0..<chatCount {
            let members = (0..<Int.random(in: 0..<5, using: &random)).map { _ in "u\(Int.random(in: 0..<userCount + 2, using: &random))" }
            try Chat(id: "c\(index)", title: Bool.random(using: &random) ? "team \(index)" : nil, users: .ids(members)).save(to: &context)
        }
        for index in 0..<Int.random(in: 20..<120, using: &random) {
            // Chat c8 is never stored; u12 and u13 neither.
            try Message(id: "m\(index)", text: "t", timestamp: Int.random(in: 0..<100, using: &random),
                        author: .id("u\(Int.random(in: 0..<userCount + 2, using: &random))"),
                        chat: .id("c\(Int.random(in: 0..<chatCount + 1, using: &random))"),
                        viewedBy: .ids((0..<Int.random(in: 0..<3, using: &random)).map { _ in "u\(Int.random(in: 0..<userCount, using: &random))" }))
                .save(to: &context)
        }
        if Bool.random(using: &random) { try Chat(id: "c0").delete(from: &context) }
        return context
    }

    @Test(arguments: 0..<8)
    func relationFiltersEqualCheckingResolvedRelations(seed: UInt64) throws {
        let context = try Self.randomGraph(seed: seed)
        let chats = Chat.query(in: context).with(\.$messages).with(\.$users).resolve()
        let messages = Message.query(in: context).with(\.$chat).with(\.$author).with(\.$viewedBy).resolve()
        let users = User.query(in: context).with(\.$chats).resolve()
        func ids<E: EntityModelProtocol>(_ query: QueryList<E>) -> [E.ID] { query.resolve().map(\.id) }

        // To-one.
        #expect(ids(Message.filter(.related(\.$chat, where: .string(\.title, contains: "team")), in: context))
                == messages.filter { $0.chat?.title?.contains("team") ?? false }.map(\.id))
        #expect(ids(Message.filter(.related(\.$chat), in: context)) == messages.filter { $0.chat != nil }.map(\.id))
        #expect(ids(Message.filter(!.related(\.$author, where: \.age >= 30), in: context))
                == messages.filter { !(($0.author?.age ?? 0) >= 30 && $0.author != nil) }.map(\.id))

        // To-many: any, all, none; with and without a condition; mutual and one-way.
        for cutoff in [0, 50, 99, 100] {
            #expect(ids(Chat.filter(.any(\.$messages, where: \.timestamp >= cutoff), in: context))
                    == chats.filter { $0.messages!.contains { $0.timestamp >= cutoff } }.map(\.id))
            #expect(ids(Chat.filter(.all(\.$messages, where: \.timestamp >= cutoff), in: context))
                    == chats.filter { $0.messages!.allSatisfy { $0.timestamp >= cutoff } }.map(\.id))
            #expect(ids(Chat.filter(.none(\.$messages, where: \.timestamp >= cutoff), in: context))
                    == chats.filter { !$0.messages!.contains { $0.timestamp >= cutoff } }.map(\.id))
            #expect(ids(Message.filter(.any(\.$viewedBy, where: \.age < cutoff), in: context))
                    == messages.filter { $0.viewedBy!.contains { $0.age < cutoff } }.map(\.id))
        }
        #expect(ids(Chat.filter(.none(\.$messages), in: context)) == chats.filter { $0.messages!.isEmpty }.map(\.id))
        #expect(ids(Chat.filter(.any(\.$users), in: context)) == chats.filter { !$0.users!.isEmpty }.map(\.id))

        // Link counts, nested: users in any chat with more than N messages.
        for n in [0, 3, 10] {
            #expect(ids(Chat.filter(.linkCount(\.$messages, (n + 1)...), in: context)) == chats.filter { $0.messages!.count > n }.map(\.id))
            #expect(ids(User.filter(.any(\.$chats, where: .linkCount(\.$messages, (n + 1)...)), in: context))
                    == users.filter { $0.chats!.contains { chat in chats.first { $0.id == chat.id }!.messages!.count > n } }.map(\.id))
        }

        // Composed with field conditions, sorted, limited and counted.
        let composed = Chat.query(in: context).filter(.any(\.$messages, where: \.timestamp < 20) || .string(\.title, contains: "3"))
            .sorted(by: \.title).limit(3)
        let matching: [Chat] = chats.filter { chat in
            chat.messages!.contains { $0.timestamp < 20 } || (chat.title?.contains("3") ?? false)
        }
        // Stable, nil titles first.
        let expected = matching.enumerated().sorted { a, b in
            let (x, y) = (a.element.title, b.element.title)
            if x != y { return x == nil || (y != nil && x! < y!) }
            return a.offset < b.offset
        }.map(\.element.id)
        #expect(ids(composed) == Array(expected.prefix(3)))
        let anyRecent = Chat.filter(.any(\.$messages, where: \.timestamp >= 50), in: context)
        #expect(anyRecent.count() == chats.filter { $0.messages!.contains { $0.timestamp >= 50 } }.count)
    }

    @Test func anyOverAMutualRelationIsAnsweredFromTheRelatedSide() throws {
        let context = try Self.randomGraph(seed: 3)
        // Message has an ordered index on timestamp: the related query uses it, then the inverse links.
        let plan = Chat.filter(.any(\.$messages, where: \.timestamp > 90), in: context).explain()
        #expect(plan.steps == ["related Chat.messages [index range Message.timestampOrdered] then inverse links"])
        // A one-way relation has no inverse: every message is checked.
        #expect(Message.filter(.any(\.$viewedBy, where: \.age > 3), in: context).explain().steps == ["scan", "filter"])
        // A bare entity cannot answer a relation condition.
        #expect(!Predicate<Chat>.any(\.$messages).evaluate(Chat(id: "c0")))
    }

    @Test func aLiveQueryWithARelationFilterWatchesTheRelatedTables() throws {
        let context = try Self.randomGraph(seed: 4)
        // Over two ids only, but a message (or, nested, a user) written anywhere may change the answer.
        let query = Chat.query(["c1", "c2"], in: context).filter(.any(\.$messages, where: .related(\.$author, where: \.age > 30)))
        let reach = query.reach(in: context)
        #expect(reach.tables.isSuperset(of: [ObjectIdentifier(Message.self), ObjectIdentifier(User.self)]))
        #expect(!reach.tables.contains(ObjectIdentifier(Chat.self)))
    }
}
