import ChatModels
import Foundation
@testable import SchemaRuntime
import Testing

/// README "How to use Filter Queries", "How to use Sort Queries" and "Indexing", on the chat
/// types, whose schema declares ordered, hash, unique and full-text indexes.
@Suite struct IndexingTests {
    private func users() throws -> Context {
        var context = Context()
        let people: [(String, Int, UserStatus)] = [("Ann", 25, .active), ("Bob", 30, .away), ("Cid", 17, .active), ("Dee", 25, .offline), ("Eve", 41, .active)]
        for (offset, person) in people.enumerated() {
            try User(id: "\(offset)", name: person.0, username: person.0.lowercased(), age: person.1, status: person.2).save(to: &context)
        }
        return context
    }

    @Test func readmeFilters() throws {
        let context = try users()
        #expect(User.filter(\.age == 25, in: context).resolve().map(\.name) == ["Ann", "Dee"])
        #expect(User.filter(\.age == 25, in: context).filter(\.status == .active).resolve().map(\.name) == ["Ann"])
        #expect(User.filter(\.age > 18, in: context).resolve().map(\.name) == ["Ann", "Bob", "Dee", "Eve"])
        #expect(User.filter(\.age >= 18, in: context).filter(\.age < 30).resolve().map(\.name) == ["Ann", "Dee"])
        #expect(User.filter(\.age == 25, in: context).or(.filter(\.age == 30, in: context)).resolve().map(\.name) == ["Ann", "Bob", "Dee"])
        #expect(User.filter(\.age > 18, in: context).and(\.status == .active).resolve().map(\.name) == ["Ann", "Eve"])
        #expect(User.filter(\.age == 25, in: context)
            .or(.filter(\.status == .away, in: context))
            .or(.filter(\.age > 40, in: context).and(\.status == .active))
            .resolve().map(\.name) == ["Ann", "Bob", "Dee", "Eve"])
        #expect(User.query(in: context).filter(!(\.status == .active) || \.age < 18).resolve().map(\.name) == ["Bob", "Cid", "Dee"])
    }

    @Test func readmeSorts() throws {
        let context = try users()
        #expect(User.query(in: context).sorted(by: \.age).resolve().map(\.name) == ["Cid", "Ann", "Dee", "Bob", "Eve"])
        #expect(User.query(in: context).sorted(by: \.age.desc).resolve().map(\.name) == ["Eve", "Bob", "Ann", "Dee", "Cid"])
        #expect(User.query(in: context).sorted(by: \.status, \.age.desc).resolve().map(\.name) == ["Eve", "Ann", "Cid", "Bob", "Dee"])
        #expect(User.query(in: context).filter(\.age > 18).sorted(by: \.name, \.age.desc).resolve().map(\.name) == ["Ann", "Bob", "Dee", "Eve"])
        #expect(User.query(in: context).sorted(by: \.age).limit(2, offset: 1).resolve().map(\.name) == ["Ann", "Dee"])
        #expect(User.query(in: context).sorted(by: \.age).first().resolve()?.name == "Cid")
        #expect(User.query(in: context).sorted(by: \.age).last().resolve()?.name == "Eve")
        // Optional keys: nil first.
        var withProfiles = context
        try User(id: "9", name: "Zed", email: "z@example.com").save(to: &withProfiles)
        #expect(User.query(in: withProfiles).sorted(by: \.email).resolve().last?.name == "Zed")
        #expect(User.query(in: withProfiles).sorted(by: \.email.desc).resolve().first?.name == "Zed")
    }

    @Test func plannerChoosesIndexes() throws {
        let context = try users()
        // A single comparison answered by an index needs no re-check; a conjunction does.
        #expect(User.filter(\.age > 18, in: context).explain().steps == ["index range User.ageOrdered"])
        #expect(User.filter(\.status == .active, in: context).explain().steps == ["index lookup User.statusHash"])
        #expect(User.filter(\.age > 18, in: context).filter(\.status == .active).explain().steps == ["index lookup User.statusHash", "filter"])
        #expect(User.filter(\.name == "Ann", in: context).filter(\.age >= 20).explain().steps.first == "index range User.nameAgeOrdered")
        #expect(User.query(in: context).sorted(by: \.age).explain().steps == ["scan index User.ageOrdered"])
        #expect(User.query(in: context).sorted(by: \.age.desc).explain().steps == ["scan index User.ageOrdered reversed"])
        #expect(User.query(in: context).sorted(by: \.name, \.age.desc).explain().steps == ["scan index User.nameAgeOrdered"])
        #expect(User.query(in: context).sorted(by: \.name).explain().steps == ["scan", "sort"]) // compound index is not a stable sort by name
        #expect(User.query(in: context).filter(.string(\.name, contains: "n")).explain().steps == ["scan", "filter"])
    }

    @Test func uniqueThrowLeavesTheContextUnchanged() throws {
        var context = try users()
        try User(id: "a", name: "A", email: "same@example.com").save(to: &context)
        let before = User.query(in: context).resolve().map(\.id)
        let clash = Chat(id: "c", users: .relation([User(id: "b", name: "B", email: "same@example.com")]))
        #expect(throws: UniqueConstraintViolation.self) { try clash.save(to: &context) }
        #expect(User.query(in: context).resolve().map(\.id) == before)
        #expect(context.count(of: Chat.self) == 0)
        #expect(User.filter(\.email == "same@example.com", in: context).resolve().map(\.id) == ["a"])
    }

    @Test func uniqueUpsertReplacesTheOlderEntityAndCleansItsLinks() throws {
        var context = Context()
        try Chat(id: "c", users: .relation([User(id: "old", name: "Old", username: "taken")])).save(to: &context)
        try User(id: "new", name: "New", username: "taken").save(to: &context)
        #expect(context.find(User.self, id: "old") == nil)
        #expect(Chat.query("c", in: context).id(\.$users).resolve()?.$users.ids == [])
        #expect(User.filter(\.username == "taken", in: context).resolve().map(\.id) == ["new"])
    }

    @Test func customResolverKeepsOneCurrentUser() throws {
        var context = Context()
        try User(id: "1", name: "One", isCurrent: true).save(to: &context)
        try User(id: "2", name: "Two", isCurrent: true).save(to: &context)
        try User(id: "3", name: "Three").save(to: &context)
        #expect(User.filter(\.isCurrent == true, in: context).resolve().map(\.id) == ["2"])
        #expect(context.find(User.self, id: "1")?.isCurrent == nil)
    }

    @Test func fullTextMatchesRankAndStayExactThroughUpdates() throws {
        var context = Context()
        let texts = ["swift database index", "swift swift swift", "a database of swift code and more words here", "unrelated"]
        for (offset, text) in texts.enumerated() {
            try Message(id: "\(offset)", text: text, author: .id("u")).withRequiredLinks().save(to: &context)
        }
        let query = Message.filter(.string(\.text, matches: "swift database"), in: context)
        #expect(query.explain().steps == ["full-text index Message.textFullText", "rank by relevance"])
        #expect(query.resolve().map(\.id) == ["0", "2"])
        try Message(id: "0", text: "nothing left", author: .id("u")).withRequiredLinks().save(to: &context)
        try Message(id: "2", text: "x", author: .id("u")).delete(from: &context)
        #expect(Message.filter(.string(\.text, matches: "swift"), in: context).resolve().map(\.id) == ["1"])
        let table = try #require(context.tableIfPresent(Message.self))
        let index = table.fullText[0]
        #expect(index.documentCount == 3 && index.totalLength == 2 + 3 + 1)
        #expect(index.postings["database"] == nil && index.postings["swift"]?.keys == [1])
        // Only whole words can be looked up: in "swift swift" both may be partial; in "swift swift swift" the middle one is whole.
        #expect(Message.filter(.string(\.text, contains: "swift swift"), in: context).explain().steps.first == "scan")
        let whole = Message.filter(.string(\.text, contains: "swift swift swift", caseSensitive: true), in: context)
        #expect(whole.explain().steps.first == "full-text index Message.textFullText")
        #expect(whole.resolve().map(\.id) == ["1"])
    }

    @Test func stringPredicates() throws {
        var context = Context()
        for (offset, text) in ["Re: hello", "hello world", "Kind regards", "HELLO"].enumerated() {
            try Message(id: "\(offset)", text: text).withRequiredLinks().save(to: &context)
        }
        #expect(Message.filter(.string(\.text, contains: "hello"), in: context).resolve().map(\.id) == ["0", "1", "3"])
        #expect(Message.filter(.string(\.text, contains: "Hello", caseSensitive: true), in: context).resolve().isEmpty)
        #expect(Message.filter(.string(\.text, hasPrefix: "Re:"), in: context).resolve().map(\.id) == ["0"])
        #expect(Message.filter(.string(\.text, hasSuffix: "regards"), in: context).resolve().map(\.id) == ["2"])
        #expect(Message.filter(.string(\.text, notContains: "hello"), in: context).resolve().map(\.id) == ["2"])
        #expect(try Message.filter(.string(\.text, matchesRegex: "^[A-Z]+$"), in: context).resolve().map(\.id) == ["3"])
        #expect(throws: InvalidQuery.self) { try Predicate<Message>.string(\.text, matchesRegex: "(") }
    }

    @Test func nestedQueriesFilterSortAndLimit() throws {
        var context = Context()
        try Chat(id: "c", messages: .relation((0..<6).map { Message(id: "\($0)", text: "m\($0)", timestamp: 10 - $0).withAuthor() })).save(to: &context)
        let chat = Chat.query("c", in: context).with(\.$messages) { $0.filter(\.timestamp > 5).sorted(by: \.timestamp).limit(2) }.resolve()
        #expect(chat?.messages?.map(\.id) == ["4", "3"])
    }
}

/// `metadata updatedAt` (Message declares it in Schemas/Chat/Message.schema).
@Suite struct UpdatedAtTests {
    @Test func savesAreTimestampedQueryableAndRolledBack() throws {
        var context = Context()
        let start = Date()
        try Message(id: "1", text: "a").withRequiredLinks().save(to: &context)
        let first = try #require(context.updatedAt(of: Message.self, id: "1"))
        #expect(first >= start.addingTimeInterval(-1))
        #expect(context.updatedAt(of: User.self, id: "1") == nil) // User does not track it

        let middle = Date()
        Thread.sleep(forTimeInterval: 0.01)
        try Message(id: "2", text: "b").withRequiredLinks().save(to: &context)
        #expect(Message.query(in: context).updated(since: middle).resolve().map(\.id) == ["2"])
        #expect(Message.query(in: context).updated(since: middle).explain().steps.contains("index range Message.updatedAt"))
        #expect(Message.query(in: context).updated(since: start.addingTimeInterval(-1)).count() == 2)

        // A rolled-back save keeps the old timestamp; a delete clears it.
        struct Abort: Error {}
        var attempt = context
        _ = try? attempt.transaction { context in
            try Message(id: "1", text: "changed").withRequiredLinks().save(to: &context)
            throw Abort()
        }
        #expect(attempt.updatedAt(of: Message.self, id: "1") == first)
        try Message(id: "1", text: "").delete(from: &context)
        #expect(context.updatedAt(of: Message.self, id: "1") == nil)
        #expect(Message.query(in: context).updated(since: start.addingTimeInterval(-1)).resolve().map(\.id) == ["2"])
    }
}

/// #30: types kept in Swift get an index value by declaring `IndexKeyConvertible`: a raw
/// value enum its raw value, any other `Codable` value its canonical JSON, so equal values
/// have equal keys and different ones different keys.
@Suite struct DefaultIndexValueTests {
    enum Level: Int, Codable, Hashable, IndexKeyConvertible { case low = 1, high = 2 }
    enum Kind: Codable, Hashable, IndexKeyConvertible {
        case image(url: String, size: Int)
        case file(name: String)
        case empty
    }
    struct Box: Codable, Hashable, IndexKeyConvertible {
        var b: Int
        var a: [String: Int]
    }

    @Test func rawValuesAndCodableValuesHaveKeysThatFollowEquality() {
        #expect(Level.high.indexValue == .int(2) && Level.low.indexValue < Level.high.indexValue)
        let kinds: [Kind] = [.image(url: "a/b", size: 1), .image(url: "a/b", size: 2), .file(name: "x"), .empty, .image(url: "a/b", size: 1)]
        for x in kinds {
            for y in kinds { #expect((x.indexValue == y.indexValue) == (x == y), "\(x) \(y)") }
        }
        // Dictionary order does not change the key: keys are sorted.
        #expect(Box(b: 1, a: ["x": 1, "y": 2]).indexValue == Box(b: 1, a: ["y": 2, "x": 1]).indexValue)
        #expect(Box(b: 1, a: [:]).indexValue != Box(b: 2, a: [:]).indexValue)
    }
}
