import BenchModels
import Foundation
import PostgresTestSupport
import SchemaRuntime
import SchemaStore
@_spi(StoreServer) import SchemaStorePostgres

/// `schemastore-bench postgres-profile [messages] [writes]`: one store on a throwaway
/// cluster, its first commit of `messages` and then `writes` single writes; then a store
/// reading on demand, 200 ranked matches and `writes` single writes, and its first commit of
/// `messages` into an empty database. Each step timed once:
/// steady loops to run under a profiler (`perf record -a`), not a comparison.
/// `PG_LOG_STATEMENTS=<file>` copies the server's log of every statement's time there.
enum PostgresProfile {
    static func run(messages: Int, writes: Int) throws {
        guard let cluster = try TemporaryPostgresCluster.start() else {
            print(TemporaryPostgresCluster.missingServer)
            return
        }
        defer {
            if let copy = ProcessInfo.processInfo.environment["PG_LOG_STATEMENTS"] {
                try? FileManager.default.copyItem(at: cluster.folder.appendingPathComponent("server.log"), to: URL(fileURLWithPath: copy))
            }
            cluster.stop()
        }
        let graph = PostgresBenchmark.Graph(messages: messages)
        let configuration = try cluster.createDatabase("profile")
        if ProcessInfo.processInfo.environment["PG_LOG_STATEMENTS"] != nil {
            // The server's log (server.log in the cluster's folder) then times each statement.
            try PostgresConnection(configuration).execute("ALTER DATABASE profile SET log_min_duration_statement = 0")
        }
        var store: Store! = try Store(.postgres(configuration), schema: BenchModelsSchema.self,
                                      options: Store.Options(residency: .resident))
        print("first commit of \(messages) messages: \(try firstCommit(graph, to: store))")
        print("\(writes) single writes: \(try singleWrites(writes, to: store, firstID: 100_000_000))")
        // Closed: it would follow the on-demand store's writes below, on the same cores.
        store = nil
        // Reads on demand: a ranked match of two words (each in about 1% of the messages).
        // As autovacuum would, after a load (a table's visibility map lets index-only scans
        // skip its rows); PROFILE_ANALYZE_ONLY=1 only analyzes, as right after a load.
        try PostgresConnection(configuration).execute(ProcessInfo.processInfo.environment["PROFILE_ANALYZE_ONLY"] != nil ? "ANALYZE" : "VACUUM ANALYZE")
        let onDemand = try Store(.postgres(configuration), schema: BenchModelsSchema.self, options: Store.Options(residency: .onDemand))
        let searches = try OnDemandBenchmark.milliseconds {
            for _ in 0..<200 {
                _ = try onDemand.read { context in Message.query(in: context).filter(.string(\.text, matches: "17 42")).limit(20).resolve() }
            }
        }
        print("200 ranked matches on demand: \(String(format: "%.3f", searches / 200)) ms each")
        print("\(writes) single writes on demand: \(try singleWrites(writes, to: onDemand, firstID: 200_000_000))")
        // The same first commit by a store reading on demand, into a database of its own.
        let empty = try Store(.postgres(try cluster.createDatabase("profile_empty")), schema: BenchModelsSchema.self,
                              options: Store.Options(residency: .onDemand))
        print("first commit of \(messages) messages on demand: \(try firstCommit(graph, to: empty))")
    }

    /// `graph` saved in one write: its time and the CPU time this process spent on it.
    private static func firstCommit(_ graph: PostgresBenchmark.Graph, to store: Store) throws -> String {
        let cpu = OnDemandBenchmark.processCPUMilliseconds()
        let total = try OnDemandBenchmark.milliseconds {
            try store.write { context in
                try graph.users.save(to: &context)
                try graph.chats.save(to: &context)
            }
        }
        return String(format: "%.0f ms, client CPU %.0f ms", total, OnDemandBenchmark.processCPUMilliseconds() - cpu)
    }

    /// `count` writes of a new message each (ids from `firstID`) into chat 0: the mean time
    /// of one, the mean CPU time this process spent on one (the client's share of it, with
    /// any polling for answers), and the mean time its connection waited for answers.
    private static func singleWrites(_ count: Int, to store: Store, firstID: Int) throws -> String {
        let cpu = OnDemandBenchmark.processCPUMilliseconds()
        let waitsBefore = AnswerWaitTotals.current
        let total = try OnDemandBenchmark.milliseconds {
            for index in 0..<count {
                try store.write { context in
                    try Message(id: firstID + index, text: "new", timestamp: index, chat: .id(0), author: .id(0)).save(to: &context)
                }
            }
        }
        let client = OnDemandBenchmark.processCPUMilliseconds() - cpu
        let writes = Double(max(count, 1))
        let waited = Double(AnswerWaitTotals.current.nanoseconds - waitsBefore.nanoseconds) / 1_000_000
        return String(format: "%.3f ms each, client CPU %.3f ms each, waiting for answers %.3f ms each", total / writes, client / writes, waited / writes)
    }
}
