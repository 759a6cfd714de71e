import BenchModels
import Foundation
import PostgresTestSupport
import SchemaRuntime
import SchemaStore
import SchemaStorePostgres

/// `schemastore-bench postgres-profile [messages] [writes]`: one store on a throwaway
/// cluster, its first commit of `messages` and then `writes` single writes, each step timed
/// once: a steady loop to run under a profiler (`perf record -a`), not a comparison.
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
        let store = try Store(.postgres(configuration), schema: BenchModelsSchema.self,
                              options: Store.Options(residency: .resident))
        let commit = try OnDemandBenchmark.milliseconds {
            try store.write { context in
                try graph.users.save(to: &context)
                try graph.chats.save(to: &context)
            }
        }
        print("first commit of \(messages) messages: \(String(format: "%.0f", commit)) ms")
        let loop = try OnDemandBenchmark.milliseconds {
            for index in 0..<writes {
                try store.write { context in
                    try Message(id: 100_000_000 + index, text: "new", timestamp: index, chat: .id(0), author: .id(0)).save(to: &context)
                }
            }
        }
        print("\(writes) single writes: \(String(format: "%.3f", loop / Double(max(writes, 1)))) ms each")
    }
}
