import ChatModels
import DeterministicRandom
import Foundation
import SchemaRuntime
import Testing

/// Grouped aggregates, multi-field distinct values, `distinct(on:)` and projections, each
/// compared with the same computation done by hand on the entities a plain query returns.
@Suite struct GroupingTests {
    /// Groups in order of first appearance, as the reference computes them.
    static func groups<Key: Hashable, Row>(_ rows: [Row], _ key: (Row) -> Key) -> [(key: Key, rows: [Row])] {
        var order: [Key] = []
        var members: [Key: [Row]] = [:]
        for row in rows {
            if members[key(row)] == nil { order.append(key(row)) }
            members[key(row), default: []].append(row)
        }
        return order.map { ($0, members[$0]!) }
    }

    /// A stable sort of groups by a comparable projection, nil first.
    static func sorted<Group, Value: Comparable>(_ groups: [Group], by value: (Group) -> Value?, descending: Bool) -> [Group] {
        let indexed = Array(groups.enumerated())
        func less(_ a: Value?, _ b: Value?) -> Bool { b.map { b in a.map { $0 < b } ?? true } ?? false }
        return indexed.sorted { x, y in
            let (a, b) = (value(x.element), value(y.element))
            if descending ? less(b, a) : less(a, b) { return true }
            if descending ? less(a, b) : less(b, a) { return false }
            return x.offset < y.offset
        }.map(\.element)
    }

    static let seeds: [(UInt64, Int)] = [(1, 0), (2, 1), (3, 40), (4, 200)]

    @Test(arguments: seeds)
    func groupedAggregatesByFieldsEqualTheReference(seed: UInt64, users: Int) throws {
        let context = try AggregateTests.randomContext(seed: seed, users: users)
        let queries: [QueryList<User>] = [
            User.query(in: context),
            User.filter(\.age >= 3, in: context).sorted(by: \.name),
            User.filter(\.age > 100, in: context),
        ]
        for query in queries {
            let users = query.resolve()
            let byStatus = Self.groups(users, \.status)
            let counts = query.group(by: \.status).count()
            #expect(counts.map(\.key) == byStatus.map(\.key))
            #expect(counts.map(\.value) == byStatus.map(\.rows.count) && counts.map(\.count) == byStatus.map(\.rows.count))

            // Two fields: the key is a tuple.
            let byPair = Self.groups(users) { [$0.status.rawValue, $0.name] }
            let averages = query.group(by: \.status, \.name).average(\.age)
            #expect(averages.map { [$0.key.0.rawValue, $0.key.1] } == byPair.map(\.key))
            #expect(averages.map(\.value) == byPair.map { Double($0.rows.reduce(0) { $0 + $1.age }) / Double($0.rows.count) })

            // Optional fields: nils skipped, nil for a group with none set.
            let byName = Self.groups(users, \.name)
            let smallest = query.group(by: \.name).min(\.email)
            #expect(smallest.map(\.value) == byName.map { $0.rows.compactMap(\.email).min() })
            #expect(query.group(by: \.name).max(\.age).map(\.value) == byName.map { $0.rows.map(\.age).max() })
            #expect(query.group(by: \.name).sum(\.age).map(\.value) == byName.map { $0.rows.reduce(0) { $0 + $1.age } })

            // Sorted by key and by aggregate, with a limit.
            for descending in [false, true] {
                let byKey = query.group(by: \.name).sortedByKey(descending: descending).count()
                #expect(byKey.map(\.key) == Self.sorted(byName, by: { $0.key }, descending: descending).map(\.key))
                let busiest = query.group(by: \.name).sortedByAggregate(descending: descending).limit(2).sum(\.age)
                let expected = Self.sorted(byName, by: { $0.rows.reduce(0) { $0 + $1.age } }, descending: descending).prefix(2)
                #expect(busiest.map(\.key) == expected.map(\.key))
                let emails = query.group(by: \.status).sortedByAggregate(descending: descending).min(\.email)
                #expect(emails.map(\.key) == Self.sorted(byStatus, by: { $0.rows.compactMap(\.email).min() }, descending: descending).map(\.key))
            }
            #expect(query.group(by: \.status).limit(0).count().isEmpty)
            let entities = query.group(by: \.status).entities()
            #expect(entities.map { $0.entities.map(\.id) } == byStatus.map { $0.rows.map(\.id) })
        }
    }

    @Test(arguments: seeds)
    func groupedAggregatesByRelationEqualTheReference(seed: UInt64, users: Int) throws {
        let context = try AggregateTests.randomContext(seed: seed, users: users)
        for query in [Message.query(in: context), Message.filter(\.timestamp > 10, in: context).sorted(by: \.timestamp)] {
            let messages = query.with(\.$chat).with(\.$author).resolve()
            check(query, messages, \.$chat) { $0.chat?.id }
            check(query, messages, \.$author) { $0.author?.id }
        }
    }

    /// #27: grouping by a to-many relation (messages per viewer, chats per member) in one
    /// query: an entity counts in the group of each entity it links to, or in the nil group.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func groupedAggregatesByAToManyRelationEqualTheReference(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var context = try AggregateTests.randomContext(seed: seed, users: 30)
        // Viewers: stored users and ids without a row (which group under nil when alone).
        for id in context.ids(of: Message.self) where Bool.random(using: &random) {
            var message = try #require(context.find(Message.self, id: id))
            message.$viewedBy = .ids((0..<Int.random(in: 0..<4, using: &random)).map { _ in "u\(Int.random(in: 0..<34, using: &random))" })
            try message.save(to: &context)
        }
        for index in 0..<3 {
            try Chat(id: "c\(index)", users: .ids((0..<Int.random(in: 0..<6, using: &random)).map { _ in "u\(Int.random(in: 0..<30, using: &random))" })).save(to: &context)
        }
        let stored = Set(context.ids(of: User.self))
        for query in [Message.query(in: context), Message.filter(\.timestamp > 0, in: context).sorted(by: \.timestamp.desc)] {
            let messages = query.id(\.$viewedBy).resolve()
            // Membership pairs in result order, then link order.
            var pairs: [(key: String?, message: Message)] = []
            for message in messages {
                let viewers = (message.$viewedBy.ids ?? []).filter(stored.contains)
                if viewers.isEmpty { pairs.append((nil, message)) }
                for viewer in viewers { pairs.append((viewer, message)) }
            }
            let expected = Self.groups(pairs, \.key)
            let counts = query.group(by: \.$viewedBy).count()
            #expect(counts.map(\.key) == expected.map(\.key))
            #expect(counts.map(\.value) == expected.map(\.rows.count))
            #expect(query.group(by: \.$viewedBy).sum(\.timestamp).map(\.value) == expected.map { $0.rows.reduce(0) { $0 + $1.message.timestamp } })
            for descending in [false, true] {
                let byKey = query.group(by: \.$viewedBy).sortedByKey(descending: descending).count()
                #expect(byKey.map(\.key) == Self.sorted(expected, by: { $0.key }, descending: descending).map(\.key))
            }
        }
        // A mutual to-many relation: chats per member.
        let chats = Chat.query(in: context).id(\.$users).resolve()
        var members: [(key: String?, chat: String)] = []
        for chat in chats {
            let users = chat.$users.ids ?? []
            if users.isEmpty { members.append((nil, chat.id)) }
            for user in users { members.append((user, chat.id)) }
        }
        let expected = Self.groups(members, \.key)
        #expect(Chat.query(in: context).group(by: \.$users).count().map { "\($0.key ?? "-")=\($0.value)" }
                == expected.map { "\($0.key ?? "-")=\($0.rows.count)" })
    }

    func check<Target, Directionality, Constraint>(_ query: QueryList<Message>, _ messages: [Message],
                                                   _ relation: KeyPath<Message, ToOne<Target, Directionality, Constraint>>,
                                                   _ key: (Message) -> Target.ID?) where Target.ID: Comparable {
        let expected = Self.groups(messages, key)
        let counts = query.group(by: relation).count()
        #expect(counts.map(\.key) == expected.map(\.key))
        #expect(query.distinct(relation) == expected.map(\.key))
        #expect(counts.map(\.value) == expected.map(\.rows.count))
        #expect(query.group(by: relation).sum(\.timestamp).map(\.value) == expected.map { $0.rows.reduce(0) { $0 + $1.timestamp } })
        #expect(query.group(by: relation).max(\.editedAt).map(\.value) == expected.map { $0.rows.compactMap(\.editedAt).max() })
        for descending in [false, true] {
            let byKey = query.group(by: relation).sortedByKey(descending: descending).count()
            #expect(byKey.map(\.key) == Self.sorted(expected, by: { $0.key }, descending: descending).map(\.key))
            let top = query.group(by: relation).sortedByAggregate(descending: descending).limit(3).count()
            #expect(top.map(\.key) == Self.sorted(expected, by: { $0.rows.count }, descending: descending).prefix(3).map(\.key))
        }
    }

    @Test(arguments: seeds)
    func distinctValuesAndProjectionsEqualTheReference(seed: UInt64, users: Int) throws {
        let context = try AggregateTests.randomContext(seed: seed, users: users)
        let query = User.query(in: context).filter(\.age != 2).sorted(by: \.age.desc)
        let users = query.resolve()

        let pairs = query.distinct(\.status, \.name)
        #expect(pairs.map { "\($0.0)|\($0.1)" } == Self.groups(users) { "\($0.status)|\($0.name)" }.map(\.key))
        let triples = query.distinct(\.name, \.email, \.age)
        #expect(triples.count == Self.groups(users) { "\($0.name)|\(String(describing: $0.email))|\($0.age)" }.count)

        let selected = query.select(\.id, \.email)
        #expect(selected.map(\.0) == users.map(\.id) && selected.map(\.1) == users.map(\.email))
        #expect(query.select(\.age) == users.map(\.age))

        // distinct(on:): the first entity of each combination in the query's order, then the limit.
        let firstPerName = query.distinct(on: \.name)
        #expect(firstPerName.resolve().map(\.id) == Self.groups(users, \.name).map(\.rows[0].id))
        #expect(firstPerName.limit(2, offset: 1).resolve().map(\.id) == Array(Self.groups(users, \.name).map(\.rows[0].id).dropFirst().prefix(2)))
        #expect(firstPerName.count() == Self.groups(users, \.name).count)
        let perPair = User.query(in: context).distinct(on: \.status, \.age).limit(3)
        let all = User.query(in: context).resolve()
        #expect(perPair.resolve().map(\.id) == Array(Self.groups(all) { "\($0.status)|\($0.age)" }.map(\.rows[0].id).prefix(3)))
        #expect(perPair.explain().steps.contains("distinct"))
    }

    @Test func countsAnsweredFromAnIndexReadNoRows() throws {
        let context = try AggregateTests.randomContext(seed: 5, users: 100)
        let query = User.filter(\.age >= 2 && \.age < 6, in: context)
        #expect(query.count() == User.query(in: context).resolve().filter { $0.age >= 2 && $0.age < 6 }.count)
        // Both bounds are answered by the index: no "filter" step re-checks rows.
        #expect(query.explain().steps == ["index range User.ageOrdered"])
    }
}
