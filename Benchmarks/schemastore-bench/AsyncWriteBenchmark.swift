import BenchModels
import Foundation
import PostgresTestSupport
import SchemaRuntime
import SchemaStore
import SchemaStorePostgres

/// `schemastore-bench async-writes [rounds] [postgres]`: what an async write pays for waiting
/// on a thread of the store's own (``BlockingWork``) rather than on the cooperative pool's.
/// From a task isolated to no actor, single writes (a new message saved into a chat), each
/// store in turn: the synchronous write (which holds the pool's thread, as async writes did
/// before) and the async one, alternated round by round (20 by default) in an order that
/// rotates, 200 writes of each per round. Prints per store the median write of each and the
/// median of the rounds' differences. Stores: a SQLite file read on demand and one resident;
/// with `postgres`, a throwaway cluster's database for each residency too.
enum AsyncWriteBenchmark {
    static let writes = 200

    static func run(rounds: Int, postgres: Bool) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("async-writes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var stores: [(name: String, store: Store)] = []
        for residency in [Store.Residency.onDemand, .resident] {
            let store = try Store(.file(folder.appendingPathComponent("\(residency).sqlite")), schema: BenchModelsSchema.self,
                                  options: .init(residency: residency))
            stores.append(("SQLite file, \(residency == .resident ? "resident" : "on demand")", store))
        }
        var cluster: TemporaryPostgresCluster?
        if postgres {
            guard let started = try TemporaryPostgresCluster.start() else {
                print(TemporaryPostgresCluster.missingServer)
                return
            }
            cluster = started
            for residency in [Store.Residency.onDemand, .resident] {
                let configuration = try started.createDatabase("async_\(residency == .resident ? "resident" : "ondemand")")
                stores.append(("PostgreSQL, \(residency == .resident ? "resident" : "on demand")",
                               try Store(.postgres(configuration), schema: BenchModelsSchema.self, options: .init(residency: residency))))
            }
        }
        defer {
            for (_, store) in stores { store.close() }
            cluster?.stop()
        }
        for (_, store) in stores {
            try await store.write { context in
                try User(id: 0, name: "Ada", age: 30).save(to: &context)
                try Chat(id: 0, title: "general").save(to: &context)
            }
        }
        print("Single writes from a task isolated to no actor, sync vs async (ms; \(rounds) rounds of \(writes) each; load \(OnDemandBenchmark.loadAverage()))")
        if let cluster {
            let writers = 4 * ProcessInfo.processInfo.activeProcessorCount
            var databases: [PostgresConnection.Configuration] = []
            for index in 0..<writers {
                let configuration = try cluster.createDatabase("async_responsiveness_\(index)")
                try await Store(.postgres(configuration), schema: BenchModelsSchema.self).write { context in
                    try User(id: 0, name: "Ada", age: 30).save(to: &context)
                    try Chat(id: 0, title: "general").save(to: &context)
                }
                databases.append(configuration)
            }
            for shape in Shape.allCases {
                print("\(writers) tasks writing for 2 s through \(shape.rawValue), sync or async writes, alternated; a task sleeping 1 ms at a time wakes late by (ms):")
                for round in 0..<4 {
                    for async in round % 2 == 0 ? [false, true] : [true, false] {
                        let run = try await responsiveness(shape == .databaseEach ? databases : [databases[0]], writers: writers,
                                                           storeEach: shape != .oneStore, seconds: 2, async: async)
                        print("  \(async ? "async" : "sync "): p50 \(String(format: "%.3f", run.late50)), p99 \(String(format: "%.3f", run.late99)); \(Int(run.writesPerSecond)) writes/s")
                    }
                }
            }
        }
        for (index, (name, store)) in stores.enumerated() {
            var sync: [Double] = [], async: [Double] = [], differences: [Double] = []
            for round in 0..<rounds {
                let first = 1_000_000 * (index + 1) + round * 2 * writes
                var thisRound: [Bool: Double] = [:]
                for turn in 0..<2 {
                    let isAsync = (round + turn) % 2 == 1
                    let offset = first + (isAsync ? writes : 0)
                    thisRound[isAsync] = isAsync ? try await medianAsyncWrite(store, firstID: offset) : try medianSyncWrite(store, firstID: offset)
                }
                sync.append(thisRound[false]!)
                async.append(thisRound[true]!)
                differences.append(thisRound[true]! - thisRound[false]!)
            }
            let median = OnDemandBenchmark.median
            print("  \(name): sync \(String(format: "%.4f", median(sync))), async \(String(format: "%.4f", median(async))), "
                  + "async - sync \(String(format: "%+.4f", median(differences))) (rounds: \(String(format: "%+.4f", differences.min()!)) to \(String(format: "%+.4f", differences.max()!)))")
        }
    }

    /// How the writing tasks reach the server.
    enum Shape: String, CaseIterable {
        /// As a service's request handlers share a store.
        case oneStore = "one store"
        case storeEach = "a store each on one database"
        /// As a service with a database per tenant.
        case databaseEach = "a store each on a database each"
    }

    /// With `writers` tasks writing to `databases` (in turn) for `seconds`, through one store
    /// they share or a store each, each either through the synchronous write (holding a
    /// thread of the cooperative pool through each wait, as async writes did before) or the
    /// async one: how late a task that sleeps 1 ms at a time wakes (ms: p50, p99), and the
    /// writes per second.
    static func responsiveness(_ databases: [PostgresConnection.Configuration], writers: Int, storeEach: Bool, seconds: Double, async: Bool) async throws
        -> (late50: Double, late99: Double, writesPerSecond: Double) {
        let opened = try (0..<(storeEach ? writers : 1)).map { index in
            try Store(.postgres(databases[index % databases.count]), schema: BenchModelsSchema.self, options: .init(residency: .onDemand))
        }
        defer { for store in opened { store.close() } }
        let stores = (0..<writers).map { opened[$0 % opened.count] }
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        let nextID = Counter()
        return try await withThrowingTaskGroup(of: Outcome.self) { group in
            for store in stores {
                group.addTask {
                    var written = 0
                    while ContinuousClock.now < deadline {
                        let id = nextID.next()
                        if async {
                            try await store.write { try Message(id: id, text: "new", timestamp: id, chat: .id(0), author: .id(0)).save(to: &$0) }
                        } else {
                            try syncWrite(store, id: id)
                        }
                        written += 1
                    }
                    return .written(written)
                }
            }
            // Its first sleep counts from now: a ticker that cannot start is late too.
            let created = ContinuousClock.now
            group.addTask {
                var lateness: [Double] = []
                var start = created
                repeat {
                    try await Task.sleep(for: .milliseconds(1))
                    lateness.append(OnDemandBenchmark.milliseconds(of: ContinuousClock.now - start) - 1)
                    start = ContinuousClock.now
                } while start < deadline
                return .lateness(lateness)
            }
            var written = 0, lateness: [Double] = []
            for try await outcome in group {
                switch outcome {
                case .written(let count): written += count
                case .lateness(let values): lateness = values.sorted()
                }
            }
            return (lateness[lateness.count / 2], lateness[lateness.count * 99 / 100], Double(written) / seconds)
        }
    }

    /// What a task of ``responsiveness(_:writers:storeEach:seconds:async:)`` reports.
    private enum Outcome: Sendable {
        case written(Int)
        case lateness([Double])
    }

    private static func syncWrite(_ store: Store, id: Int) throws {
        try store.write { try Message(id: id, text: "new", timestamp: id, chat: .id(0), author: .id(0)).save(to: &$0) }
    }

    /// Hands out ids to several tasks.
    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var value = 10_000_000

        func next() -> Int { lock.withLock { value += 1; return value } }
    }

    /// The synchronous write, from a synchronous function so that the compiler picks it.
    private static func medianSyncWrite(_ store: Store, firstID: Int) throws -> Double {
        var times: [Double] = []
        for index in 0..<writes {
            times.append(try OnDemandBenchmark.milliseconds {
                try store.write { try Message(id: firstID + index, text: "new", timestamp: index, chat: .id(0), author: .id(0)).save(to: &$0) }
            })
        }
        return OnDemandBenchmark.median(times)
    }

    private static func medianAsyncWrite(_ store: Store, firstID: Int) async throws -> Double {
        var times: [Double] = []
        for index in 0..<writes {
            let start = ContinuousClock.now
            try await store.write { try Message(id: firstID + index, text: "new", timestamp: index, chat: .id(0), author: .id(0)).save(to: &$0) }
            times.append(OnDemandBenchmark.milliseconds(of: ContinuousClock.now - start))
        }
        return OnDemandBenchmark.median(times)
    }
}
