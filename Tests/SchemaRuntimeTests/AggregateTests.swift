import ChatModels
import DeterministicRandom
import Foundation
import SchemaRuntime
import Testing

/// Aggregates, distinct values and grouping, each compared with the same computation on the
/// entities a plain query returns, on random data with nils, duplicates and empty results.
@Suite struct AggregateTests {
    static func randomContext(seed: UInt64, users: Int) throws -> Context {
        var random = SplitMix64(seed: seed)
        var context = Context()
        for index in 0..<users {
            try User(id: "u\(index)", name: "n\(Int.random(in: 0..<5, using: &random))",
                     email: Bool.random(using: &random) ? "e\(Int.random(in: 0..<3, using: &random))-\(index)" : nil,
                     age: Int.random(in: 0..<8, using: &random), status: Bool.random(using: &random) ? .away : .active).save(to: &context)
        }
        for index in 0..<users * 2 {
            try Message(id: "m\(index)", text: "t", timestamp: Int.random(in: -50..<50, using: &random),
                        editedAt: Bool.random(using: &random) ? Date(timeIntervalSinceReferenceDate: Double(Int.random(in: 0..<9, using: &random))) : nil,
                        author: .id("u\(Int.random(in: 0..<Swift.max(users, 1) + 2, using: &random))"),
                        chat: .id("c\(Int.random(in: 0..<4, using: &random))")).save(to: &context)
        }
        // Chat c3 is never stored: its messages group under nil.
        for index in 0..<3 { try Chat(id: "c\(index)", title: index == 1 ? nil : "chat \(index)").save(to: &context) }
        return context
    }

    @Test(arguments: [(1, 0), (2, 1), (3, 40), (4, 200)] as [(UInt64, Int)])
    func aggregatesEqualComputingThemOnTheResult(seed: UInt64, users: Int) throws {
        let context = try Self.randomContext(seed: seed, users: users)
        let queries: [QueryList<User>] = [
            User.query(in: context),
            User.filter(\.age >= 3, in: context),
            User.filter(\.status == .away, in: context).sorted(by: \.age.desc).limit(7, offset: 2),
            User.filter(\.age > 100, in: context),
        ]
        for query in queries {
            let users = query.resolve()
            #expect(query.sum(\.age) == users.reduce(0) { $0 + $1.age })
            #expect(query.average(\.age) == (users.isEmpty ? nil : Double(users.reduce(0) { $0 + $1.age }) / Double(users.count)))
            #expect(query.min(\.age) == users.map(\.age).min() && query.max(\.age) == users.map(\.age).max())
            #expect(query.min(\.email) == users.compactMap(\.email).min() && query.max(\.email) == users.compactMap(\.email).max())
            #expect(query.distinct(\.name) == users.map(\.name).reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } })
            #expect(query.distinct(\.email) == users.map(\.email).reduce(into: [String?]()) { if !$0.contains($1) { $0.append($1) } })
            let groups = query.grouped(by: \.status)
            #expect(groups.map(\.key) == users.map(\.status).reduce(into: []) { if !$0.contains($1) { $0.append($1) } })
            for group in groups { #expect(group.entities.map(\.id) == users.filter { $0.status == group.key }.map(\.id)) }
            #expect(groups.reduce(0) { $0 + $1.entities.count } == users.count)
        }
        let messages = Message.query(in: context).sorted(by: \.timestamp)
        let resolved = messages.resolve()
        #expect(messages.sum(\.timestamp) == resolved.reduce(0) { $0 + $1.timestamp })
        let edited = resolved.compactMap(\.editedAt)
        #expect(messages.min(\.editedAt) == edited.min() && messages.max(\.editedAt) == edited.max())
        #expect(messages.distinct(\.editedAt).count == Set(resolved.map(\.editedAt)).count)

        // By a relation: the author each message links to (nil when that user is not stored).
        let byAuthor = Message.query(in: context).with(\.$author)
        let expected = byAuthor.resolve().map { ($0.id, $0.author?.id) }
        let groups = byAuthor.grouped(by: \.$author)
        #expect(groups.map(\.key) == expected.map(\.1).reduce(into: [String?]()) { if !$0.contains($1) { $0.append($1) } })
        for group in groups { #expect(group.entities.map(\.id) == expected.filter { $0.1 == group.key }.map(\.0)) }
    }

    @Test func aQueryWithoutAContextAggregatesInTheGivenOne() throws {
        let context = try Self.randomContext(seed: 9, users: 30)
        let query = User.query().filter(\.age < 4)
        let ages = query.resolve(in: context).map(\.age)
        #expect(!ages.isEmpty)
        #expect(query.sum(\.age, in: context) == ages.reduce(0, +))
        #expect(query.in(context).sum(\.age) == ages.reduce(0, +))
        #expect(query.max(\.age, in: context) == ages.max())
        #expect(query.in(context).group(by: \.age).count().map(\.value).reduce(0, +) == ages.count)
        // Without a context, `query.sum(\.age)` does not compile (MisuseCompileTests).
    }
}
