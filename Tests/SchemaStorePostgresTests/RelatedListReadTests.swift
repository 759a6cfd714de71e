import ChatModels
import ChatWorkloads
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
    /// A store on demand over a new, seeded and analyzed database, and a resident store on it.
    static func stores(_ cluster: TemporaryPostgresCluster, _ name: String) throws -> (onDemand: Store, resident: Store) {
        let configuration = try cluster.createDatabase(name)
        let resident = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .resident))
        try RelatedListFixture.seed(resident)
        _ = try resident.executeOnOwnConnection("ANALYZE")
        return (try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand)), resident)
    }

    /// Random limited lists of every chat's messages, newest or oldest first, some filtered,
    /// and of its users by name (``RelatedListFixture``): the answers a resident store gives,
    /// from each step.
    @Test func answersEqualAResidentStoresWhereverTheListsRowsLie() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, resident) = try Self.stores(cluster, "relatedlists")
        defer { store.close(); resident.close() }
        // How each read was answered: by the links at once (lists of up to `linkedRows`),
        // by the walk, or by the links after a walk that found too few rows; or, asking for
        // more than `walkedLimit` rows, as one join.
        var answered: [String: Int] = [:]
        for list in RelatedListFixture.messageLists(200) {
            let before = store.onDemandStatistics.statements
            let answer = try store.read { list.ids(in: $0) }
            #expect(answer == list.ids(in: resident.context), "\(list)")
            switch store.onDemandStatistics.statements - before {
            case 1 where list.limit + list.offset > RelatedListRead.walkedLimit: answered["one join", default: 0] += 1
            case 1: answered[list.isLong ? "walk" : "links", default: 0] += 1
            case 2 where list.isLong && !answer.isEmpty: answered["links after the walk", default: 0] += 1
            case 2: break
            case let statements: Issue.record("a related list read in \(statements) statements")
            }
        }
        #expect(answered.count == 4 && answered.values.allSatisfy { $0 >= 10 }, "\(answered)")
        for (name, ids) in RelatedListFixture.userLists() {
            #expect(try store.read(ids) == ids(resident.context), "\(name)")
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

    /// The walk's end falls inside a group of messages with one timestamp
    /// (``RelatedListFixture/seedTiedGroup(_:walkedRows:linkedRows:)``). The walk reads the
    /// whole group, and answers what a resident store does; cut at its end, it would answer
    /// with the wrong half.
    @Test func aTimestampGroupCutByTheWalksEndIsReadWhole() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("relatedlistties")
        let resident = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .resident))
        defer { resident.close() }
        try RelatedListFixture.seedTiedGroup(resident, walkedRows: RelatedListRead.walkedRows, linkedRows: RelatedListRead.linkedRows)
        _ = try resident.executeOnOwnConnection("ANALYZE")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        defer { store.close() }
        let before = store.onDemandStatistics.statements
        let answer = try store.read(RelatedListFixture.newestTied)
        #expect(store.onDemandStatistics.statements - before == 1, "the walk answered")
        #expect(answer == RelatedListFixture.newestTied(in: resident.context))
        #expect(answer.suffix(5) == RelatedListFixture.movedHalf)
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

    /// Index entries of the messages' timestamp index read so far (``indexReads(_:table:index:)``).
    private static func timestampIndexReads(_ connection: PostgresConnection) throws -> Int64 {
        try indexReads(connection, table: "Message", index: "timestamp")
    }

    /// Index entries of `table`'s indexes whose names hold `index` read so far, by every
    /// backend of the database but `connection`'s, once every other has ended (each reports
    /// its reads as it ends).
    static func indexReads(_ connection: PostgresConnection, table: String, index: String) throws -> Int64 {
        var others: [[StoredValue]] = []
        for _ in 0..<200 {
            others = try connection.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'")
            if others == [[.integer(0)]] { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        try #require(others == [[.integer(0)]], "other connections still open")
        let rows = try connection.execute("""
            SELECT sum(idx_tup_read)::bigint FROM pg_stat_user_indexes WHERE relname = $1 AND indexrelname LIKE '%' || $2 || '%'
            """, [.text(table), .text(index)])
        guard case .integer(let reads) = rows.first?[0] else { throw ReadsNotReported() }
        return reads
    }

    private struct ReadsNotReported: Error {}
}
