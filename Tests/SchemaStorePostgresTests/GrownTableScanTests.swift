import ChatModels
import ChatWorkloads
import DeterministicRandom
import Foundation
import SchemaRuntime
@_spi(SchemaStoreTesting) @testable import SchemaStore
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// A write touches the rows it names through indexes, however big the tables have grown
/// since its statements were first planned. A write's statements run on generic plans
/// cached per connection (``GenericPlanTests``), planned when a store first sends them:
/// often on a new database, whose tables then fit in a page, where scanning the whole table
/// is the cheapest plan. PostgreSQL plans them again only when the tables' statistics change
/// (a vacuum or an analyze, at most once a minute by default), so until then such a plan
/// scanned each table it touched in full, at each run: the commit log's pruning did, every
/// 16 commits (0.4-0.7 ms each time in `postgres-single`, through the log's dead rows).
///
/// Here the store writes while the tables are small (the statements are planned), the tables
/// then grow, and random writes of every kind (``RandomChatWrite``) must scan none of the
/// grown tables in full (`pg_stat_user_tables.seq_scan`, flushed from the store's own
/// connection). Before writes planned with `enable_seqscan` off, every grown table was
/// scanned so, the commit log included, once its statistics said it was small.
@Suite(.serialized) struct GrownTableScanTests {
    /// The grown tables' full scans so far, by table: those holding at least `rows` rows, and
    /// the commit log.
    private static func fullScans(_ store: Store, ofTablesWithAtLeast rows: Int) throws -> [String: Int64] {
        // Reported when the connection next goes idle, before the query after it begins.
        let statistics = try store.executeOnOwnConnection("SELECT pg_stat_force_next_flush()",
                                                          "SELECT relname, seq_scan, n_live_tup FROM pg_stat_user_tables")
        var scans: [String: Int64] = [:]
        for row in statistics {
            guard case .text(let table) = row[0], case .integer(let count) = row[1], case .integer(let live) = row[2] else { continue }
            if live >= rows || table == CommitLog.table { scans[table] = count }
        }
        return scans
    }

    @Test(arguments: [Store.Residency.resident, .onDemand])
    func writesScanNoGrownTableInFull(residency: Store.Residency) throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let store = try Store(.postgres(try cluster.createDatabase("grown")), schema: ChatModelsSchema.self,
                              options: Store.Options(residency: residency))
        defer { store.close() }
        var random = SplitMix64(seed: 29)
        var newMessages = 0
        func writeRandomly(_ count: Int) throws {
            for index in 0..<count {
                // Some throw (a taken email), as they would on any store; the rest commit.
                _ = try? store.write(RandomChatWrite.next(&random).apply)
                guard index % 4 == 0 else { continue }
                // A message new to the store, as a chat's writes mostly are: on demand, the
                // write assumes what it creates is new and checks that under the lock.
                newMessages += 1
                try store.write { context in
                    try Message(id: "new \(newMessages)", text: "new", author: .id("writer"), chat: .id("room")).save(to: &context)
                }
            }
        }
        try store.write { context in
            try User(id: "writer", name: "Ann").save(to: &context)
            try Chat(id: "room").save(to: &context)
        }
        // Every kind of write runs (and is prepared) while every table fits in a page, and
        // again after the tables were analyzed so, as autovacuum analyzes a new database's
        // after its first 50 rows: each analyze makes PostgreSQL plan them again. (Not on
        // demand: there the closures' reads, planned for their values outside the write's
        // settings, keep the plans made from such statistics too, until the next analyze;
        // docs/PostgreSQL.md, "Plans".)
        try writeRandomly(40)
        if residency == .resident { _ = try store.executeOnOwnConnection("ANALYZE") }
        try writeRandomly(80)
        // The tables grow: 4,000 messages with their links and postings, and enough commits
        // that the log holds hundreds of rows (its pruning runs every 16).
        try store.write { context in
            try User(id: "big author", name: "Big").save(to: &context)
            for index in 0..<4_000 {
                try Message(id: "big \(index)", text: "grown table \(index)", timestamp: index, author: .id("big author"),
                            chat: .id("big chat"), viewedBy: .ids(["big author"])).save(to: &context)
            }
            try Chat(id: "big chat", title: "big").save(to: &context)
        }
        try writeRandomly(200)
        let before = try Self.fullScans(store, ofTablesWithAtLeast: 1_000)
        #expect(before.count >= 4, "the grown tables: \(before)")
        // 200 random writes and 50 new messages.
        try writeRandomly(200)
        let after = try Self.fullScans(store, ofTablesWithAtLeast: 1_000)
        for (table, scans) in before.sorted(by: { $0.key < $1.key }) {
            #expect(after[table, default: scans] == scans, "\(table) was scanned in full \(after[table, default: scans] - scans) times by 250 writes")
        }
    }
}
