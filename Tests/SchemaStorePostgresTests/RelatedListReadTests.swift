import ChatModels
import DeterministicRandom
import Foundation
import SchemaRuntime
@_spi(SchemaStoreTesting) @testable import SchemaStore
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// A sorted, limited list of the rows one row links to, read on demand from PostgreSQL in
/// bounded steps (``RelatedListRead``): a walk down the sort's index past at most
/// ``RelatedListRead/walkedRows`` rows (and their ties), then, when it found too few, the
/// list's links. Answers equal a resident store's, ties across the walk's end included, and
/// a list whose rows lie far down the index is never walked to them.
@Suite(.serialized) struct RelatedListReadTests {
    /// Chats whose messages lie at different depths of the timestamp index:
    /// - "old": 40 messages, the table's oldest (timestamps 0..<40);
    /// - "sparse": 600, timestamps drawn from 40..<100 but for 30 from 100..<400 (a walk
    ///   newest first finds some of them, often fewer than a limit asks for);
    /// - "busy": 2,400 from 100..<400 (about eight messages to a timestamp, so that the
    ///   walk's last row ties with rows past it);
    /// - "quiet": 100 from 40..<400;
    /// - "empty": none.
    ///
    /// And 520 users, 40 names among them: all in "busy", 5 in "quiet".
    static func seed(_ store: Store) throws {
        var random = SplitMix64(seed: 2_912)
        try store.write { context in
            for user in 0..<520 { try User(id: "u\(user)", name: "Name \(user % 40)").save(to: &context) }
            try Chat(id: "old").save(to: &context)
            try Chat(id: "sparse").save(to: &context)
            try Chat(id: "busy", users: .ids((0..<520).map { "u\($0)" })).save(to: &context)
            try Chat(id: "quiet", users: .ids((10..<15).map { "u\($0)" })).save(to: &context)
            try Chat(id: "empty").save(to: &context)
            let chats = [("old", 40, 0..<40), ("sparse", 600, 40..<100), ("busy", 2_400, 100..<400), ("quiet", 100, 40..<400)]
            for (chat, count, timestamps) in chats {
                for n in 0..<count {
                    let timestamp = chat == "old" ? n : Int.random(in: chat == "sparse" && n >= 570 ? 100..<400 : timestamps, using: &random)
                    try Message(id: "\(chat) \(n)", text: chat, timestamp: timestamp, author: .id("u1"), chat: .id(chat)).save(to: &context)
                }
            }
        }
    }

    /// A store on demand over a new, seeded and analyzed database, and a resident store on it.
    static func stores(_ cluster: TemporaryPostgresCluster, _ name: String) throws -> (onDemand: Store, resident: Store) {
        let configuration = try cluster.createDatabase(name)
        let resident = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .resident))
        try seed(resident)
        _ = try resident.executeOnOwnConnection("ANALYZE")
        return (try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand)), resident)
    }

    /// Random limited lists of every chat's messages, newest or oldest first, some filtered,
    /// and of its users by name: the answers a resident store gives, from each step.
    @Test func answersEqualAResidentStoresWhereverTheListsRowsLie() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, resident) = try Self.stores(cluster, "relatedlists")
        defer { store.close(); resident.close() }
        var random = SplitMix64(seed: 29)
        // How each read was answered: by the links at once (lists of up to `linkedRows`),
        // by the walk, or by the links after a walk that found too few rows.
        var answered: [String: Int] = [:]
        for round in 0..<200 {
            let chat = ["old", "sparse", "busy", "quiet", "empty"][round % 5]
            let descending = Bool.random(using: &random)
            let limit = [1, 3, 7, 20, 50, 51][Int.random(in: 0..<6, using: &random)]
            let offset = Bool.random(using: &random) ? 0 : Int.random(in: 1..<40, using: &random)
            let floor = Bool.random(using: &random) ? nil : Int.random(in: 0..<400, using: &random)
            let query: @Sendable (Context) -> [String] = { context in
                var list = Chat.query(chat, in: context).related(\.$messages)
                if let floor { list = list.filter(\.timestamp >= floor) }
                let sorted = descending ? list.sorted(by: \.timestamp.desc) : list.sorted(by: \.timestamp)
                return sorted.limit(limit, offset: offset).resolve().map(\.id)
            }
            let before = store.onDemandStatistics.statements
            let answer = try store.read(query)
            let expected = query(resident.context)
            #expect(answer == expected, "chat \(chat), \(descending ? "newest" : "oldest") first, limit \(limit), offset \(offset), timestamp >= \(floor.map(String.init) ?? "any")")
            let long = ["sparse", "busy"].contains(chat)
            switch store.onDemandStatistics.statements - before {
            case 1: answered[long ? "walk" : "links", default: 0] += 1
            case 2 where long && !answer.isEmpty: answered["links after the walk", default: 0] += 1
            case 2: break
            case let statements: Issue.record("a related list read in \(statements) statements")
            }
        }
        #expect(answered.count == 3 && answered.values.allSatisfy { $0 >= 10 }, "\(answered)")
        // A text sort served by the users' index on names (ties), both directions: "busy"
        // walks (520 users), "quiet" does not.
        for chat in ["busy", "quiet", "empty"] {
            for descending in [false, true] {
                for (limit, offset) in [(1, 0), (6, 2), (20, 30)] {
                    let query: @Sendable (Context) -> [String] = { context in
                        let users = Chat.query(chat, in: context).related(\.$users)
                        return (descending ? users.sorted(by: \.name.desc) : users.sorted(by: \.name)).limit(limit, offset: offset).resolve().map(\.id)
                    }
                    #expect(try store.read(query) == query(resident.context), "users of \(chat), limit \(limit), offset \(offset)")
                }
            }
        }
    }

    /// A list read in steps runs on a generic plan, as its parts are fenced into the plans
    /// they must have: left to choose, PostgreSQL planned the statement anew at every read
    /// (its generic plan looked dearer). The reads share a snapshot, whose connection's
    /// prepared statements say how each run was planned.
    @Test func aListReadInStepsIsPlannedOnceForEveryChat() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, resident) = try Self.stores(cluster, "relatedlistplan")
        defer { store.close(); resident.close() }
        for chat in ["busy", "quiet", "old", "busy", "sparse", "quiet", "busy", "old", "busy"] {
            let query: @Sendable (Context) -> [String] = { context in
                Chat.query(chat, in: context).related(\.$messages).sorted(by: \.timestamp.desc).limit(20).resolve().map(\.id)
            }
            #expect(try store.read(query) == query(resident.context))
        }
        let onDemand = try #require(store.onDemand)
        let plans = try onDemand.currentSnapshot().withConnection { connection in
            try #require(connection as? PostgreSQLBackend).execute("""
                SELECT sum(generic_plans)::bigint, sum(custom_plans)::bigint FROM pg_prepared_statements WHERE statement LIKE '%UNION ALL%'
                """)
        }
        // The first run is of an unnamed statement; the store prepares it when it runs again.
        #expect(plans == [[.integer(8), .integer(0)]], "generic and custom plans of the prepared statement: \(plans)")
    }

    /// The walk's end falls inside a group of messages with one timestamp: chat "tied" has
    /// 15 messages among the newest, 10 at timestamp 0, which only 7 rows of the walk can
    /// hold, and 500 older ones (so that it is walked for). Half of those 10 were moved away and back (so PostgreSQL's index holds them
    /// after the others: its equal keys are in the order of their rows), and they come first
    /// in the chat's list. The walk reads the whole group, and answers what a resident store
    /// does; cut at its end, it would answer with the wrong half.
    @Test func aTimestampGroupCutByTheWalksEndIsReadWhole() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("relatedlistties")
        let resident = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .resident))
        defer { resident.close() }
        let newest = RelatedListRead.walkedRows - 7
        try resident.write { context in
            try User(id: "u", name: "Ann").save(to: &context)
            try Chat(id: "busy").save(to: &context)
            try Chat(id: "tied").save(to: &context)
            for n in 0..<10 {
                try Message(id: "tied at 0 \(n)", text: "tied", timestamp: 0, author: .id("u"), chat: .id("tied")).save(to: &context)
            }
            // Older ones, so that the chat has more links than are read at once.
            for n in 0..<RelatedListRead.linkedRows {
                try Message(id: "tied older \(n)", text: "tied", timestamp: -2 - n, author: .id("u"), chat: .id("tied")).save(to: &context)
            }
            for n in 1...newest {
                let chat = n % 60 == 0 && n / 60 <= 15 ? "tied" : "busy"
                try Message(id: "\(chat) \(n)", text: chat, timestamp: n, author: .id("u"), chat: .id(chat)).save(to: &context)
            }
        }
        for timestamp in [-1, 0] {
            try resident.write { context in
                for n in 0..<5 {
                    var message = try #require(Message.query("tied at 0 \(n)", in: context).resolve())
                    message.timestamp = timestamp
                    try message.save(to: &context)
                }
            }
        }
        _ = try resident.executeOnOwnConnection("ANALYZE")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        defer { store.close() }
        let query: @Sendable (Context) -> [String] = { context in
            Chat.query("tied", in: context).related(\.$messages).sorted(by: \.timestamp.desc).limit(20).resolve().map(\.id)
        }
        let before = store.onDemandStatistics.statements
        let answer = try store.read(query)
        #expect(store.onDemandStatistics.statements - before == 1, "the walk answered")
        #expect(answer == query(resident.context))
        #expect(answer.suffix(5) == (0..<5).map { "tied at 0 \($0)" })
    }

    /// The newest messages of "early", a chat holding 40% of the messages, all older than
    /// the rest: PostgreSQL estimates that walking the timestamp index newest first finds
    /// them after some 50 rows, and plans the list as one join so; the walk passes the other
    /// 3,000 messages first, at every read. In steps, each read passes at most
    /// ``RelatedListRead/walkedRows`` entries of that index, then reads the chat's links.
    @Test func aListWhoseRowsLieFarDownTheIndexIsNeverWalkedToThem() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("relatedlistwalk")
        let writer = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .resident))
        try writer.write { context in
            try User(id: "u", name: "Ann").save(to: &context)
            for (chat, timestamps) in [("early", 0..<2_000), ("late", 2_000..<5_000)] {
                try Chat(id: chat).save(to: &context)
                for timestamp in timestamps {
                    try Message(id: "\(chat) \(timestamp)", text: chat, timestamp: timestamp, author: .id("u"), chat: .id(chat)).save(to: &context)
                }
            }
        }
        _ = try writer.executeOnOwnConnection("ANALYZE")
        writer.close()
        let admin = try PostgresConnection(cluster.configuration(database: "relatedlistwalk"))
        defer { admin.close() }
        let before = try Self.timestampIndexReads(admin)
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        let reads = 20
        for _ in 0..<reads {
            let newest = try store.read { context in
                Chat.query("early", in: context).related(\.$messages).sorted(by: \.timestamp.desc).limit(20).resolve().map(\.id)
            }
            #expect(newest == (1_980..<2_000).reversed().map { "early \($0)" })
        }
        store.close()
        let walked = try Self.timestampIndexReads(admin) - before
        #expect(walked > 0, "the reads walked the index")
        #expect(walked <= Int64(reads * (RelatedListRead.walkedRows + 1)), "\(reads) reads read \(walked) entries of the timestamp index")
    }

    /// Index entries of the messages' timestamp index read so far, by every backend of the
    /// database but `connection`'s, once every other has ended (each reports its reads as
    /// it ends).
    private static func timestampIndexReads(_ connection: PostgresConnection) throws -> Int64 {
        var others: [[StoredValue]] = []
        for _ in 0..<200 {
            others = try connection.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'")
            if others == [[.integer(0)]] { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        try #require(others == [[.integer(0)]], "other connections still open")
        let rows = try connection.execute("""
            SELECT sum(idx_tup_read)::bigint FROM pg_stat_user_indexes WHERE relname = 'Message' AND indexrelname LIKE '%timestamp%'
            """)
        guard case .integer(let reads) = rows.first?[0] else { throw ReadsNotReported() }
        return reads
    }

    private struct ReadsNotReported: Error {}
}
