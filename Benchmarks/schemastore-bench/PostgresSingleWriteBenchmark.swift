import BenchModels
import Foundation
import PostgresTestSupport
import SchemaRuntime
import SchemaStore
import SchemaStorePostgres

/// `schemastore-bench postgres-single [messages] [rounds] [tcp] [before-flush]`: a single write (a new message
/// saved into a chat) by a resident store, by a store reading on demand and by hand with
/// the steps that let other processes see it (the observed floor, ``HandWrittenWrites``),
/// each into a database of its own holding the same `messages` (10,000 by default), on one
/// throwaway cluster. Round by round (20 by default) each writes 200 messages, in turns
/// whose order rotates; per round, the median of each and each store's ratio to the floor.
/// Prints the medians of those over the rounds: the floor and the stores measured side by
/// side, a few milliseconds apart, so that a machine's drift between runs cancels out.
/// With `tcp`, every connection goes through TCP on 127.0.0.1 instead of the cluster's Unix
/// socket: the loopback #29 names, closer to a server on another machine. With
/// `before-flush`, the stores' commits are visible before their flush
/// (``Store/CommitVisibility/beforeFlush``).
enum PostgresSingleWriteBenchmark {
    static func run(messages: Int, rounds: Int, overTCP: Bool = false, commitVisibility: Store.CommitVisibility = .afterFlush) throws {
        guard let cluster = try TemporaryPostgresCluster.start(loopbackPort: overTCP ? Int.random(in: 20_000..<30_000) : nil) else {
            print(TemporaryPostgresCluster.missingServer)
            return
        }
        defer { cluster.stop() }
        let graph = PostgresBenchmark.Graph(messages: messages)
        func filled(_ name: String) throws -> PostgresConnection.Configuration {
            let configuration = try cluster.createDatabase(name)
            try Store(.postgres(configuration), schema: BenchModelsSchema.self, options: Store.Options(residency: .resident)).write { context in
                try graph.users.save(to: &context)
                try graph.chats.save(to: &context)
            }
            try PostgresBenchmark.analyze(configuration)
            return configuration
        }
        let resident = try Store(.postgres(try filled("single_resident")), schema: BenchModelsSchema.self,
                                 options: Store.Options(residency: .resident, commitVisibility: commitVisibility))
        let onDemand = try Store(.postgres(try filled("single_ondemand")), schema: BenchModelsSchema.self,
                                 options: Store.Options(residency: .onDemand, commitVisibility: commitVisibility))
        let handDatabase = try cluster.createDatabase("single_hand")
        _ = try PostgresBenchmark.handWritten(graph, handDatabase, indexed: true, fullText: true, copy: true)
        try PostgresBenchmark.analyze(handDatabase)
        let hand = try HandWrittenWrites(handDatabase, observed: true)
        defer { hand.close() }

        let writes = PostgresBenchmark.singleWrites
        let modes = ["observed floor", "resident", "on demand"]
        var medians: [String: [Double]] = [:]
        var ratios: [String: [Double]] = [:]
        print("Single writes on PostgreSQL, \(messages) messages, \(rounds) rounds of \(writes) writes each (ms; \(overTCP ? "TCP on 127.0.0.1" : "Unix socket")\(commitVisibility == .beforeFlush ? "; stores' commits visible before their flush" : ""); load \(OnDemandBenchmark.loadAverage()))")
        for round in 0..<rounds {
            var thisRound: [String: Double] = [:]
            for turn in 0..<modes.count {
                let mode = modes[(round + turn) % modes.count]
                let first = round * writes
                thisRound[mode] = switch mode {
                case "resident": try PostgresBenchmark.medianSingleWrite(resident, firstID: 100_000_000 + first)
                case "on demand": try PostgresBenchmark.medianSingleWrite(onDemand, firstID: 200_000_000 + first)
                default: try hand.medianOf(writes, firstIndex: first)
                }
            }
            for mode in modes { medians[mode, default: []].append(thisRound[mode]!) }
            for mode in modes.dropFirst() { ratios[mode, default: []].append(thisRound[mode]! / thisRound["observed floor"]!) }
        }
        for mode in modes {
            let ratio = ratios[mode].map { String(format: ", %.2fx the floor (rounds: %.2f-%.2fx)", OnDemandBenchmark.median($0), $0.min()!, $0.max()!) } ?? ""
            print("  \(mode): \(String(format: "%.3f", OnDemandBenchmark.median(medians[mode]!)))\(ratio)")
        }
    }
}
