import ChatModels
import ChatWorkloads
import DeterministicRandom
import Foundation
import SchemaRuntime
@testable import SchemaStore
import Testing

/// Work that waits for a server runs on threads of the store's own, never on one of Swift's
/// cooperative pool, unless the caller is isolated to an actor (``BlockingWork``); a file
/// store's async API stays in place. (On a server: `AsyncServerWorkTests`.)
@Suite struct BlockingWorkTests {
    /// Blocks the calling thread, as a wait for a server would.
    static func pause(_ seconds: Double) { Thread.sleep(forTimeInterval: seconds) }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test func workFromCodeIsolatedToNoActorRunsOnAThreadOfTheStores() async throws {
        #expect(await BlockingWork.run { BlockingWorkExecutor.currentThreadIsOurs })
        #expect(!BlockingWorkExecutor.currentThreadIsOurs)
        #expect(try await CooperativePoolGate.waitsEndOpen { _, wait in await BlockingWork.run { wait() } })
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @MainActor @Test func workFromAnActorRunsInPlace() async {
        #expect(await !BlockingWork.run { BlockingWorkExecutor.currentThreadIsOurs })
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test func jobsPastTheLastThreadWaitTheirTurnAndIdleThreadsEnd() async {
        let executor = BlockingWorkExecutor(maximumThreads: 2, idleTimeout: 0.05)
        let running = Locked((now: 0, most: 0, threads: 0))
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    await withTaskExecutorPreference(executor) {
                        running.withLock { $0.now += 1; $0.most = max($0.most, $0.now); $0.threads = max($0.threads, executor.threadCount) }
                        Self.pause(0.01)
                        running.withLock { $0.now -= 1 }
                    }
                }
            }
        }
        let seen = running.withLock { $0 }
        #expect(seen.now == 0 && seen.most == 2 && seen.threads == 2)
        var threads = executor.threadCount
        for _ in 0..<200 where threads > 0 {
            try? await Task.sleep(for: .milliseconds(10))
            threads = executor.threadCount
        }
        #expect(threads == 0, "idle threads did not end")
    }

    /// Jobs past the last thread start in the order they came.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test func jobsWaitingForAThreadStartFirstInFirstOut() async throws {
        let executor = BlockingWorkExecutor(maximumThreads: 1, idleTimeout: 0.05)
        let gate = DispatchSemaphore(value: 0)
        let started = Locked([Int]())
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await withTaskExecutorPreference(executor) { gate.wait() } }
            for index in 0..<6 {
                // Each job waits behind the first before the next comes.
                try await Self.until { executor.threadCount == 1 && executor.waitingJobCount == index }
                group.addTask { await withTaskExecutorPreference(executor) { started.withLock { $0.append(index) } } }
                try await Self.until { executor.waitingJobCount == index + 1 }
            }
            gate.signal()
            try await group.waitForAll()
        }
        #expect(started.withLock { $0 } == Array(0..<6))
    }

    /// Random bursts of jobs, each blocking a while, from many tasks: each runs once, never
    /// more at once than the executor's threads, and its threads end once idle.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test(arguments: [1, 3, 16])
    func burstsOfBlockingJobsRunOnceEachWithinTheThreadBound(maximumThreads: Int) async throws {
        let executor = BlockingWorkExecutor(maximumThreads: maximumThreads, idleTimeout: 0.05)
        var random = SplitMix64(seed: UInt64(maximumThreads))
        let pauses = (0..<120).map { _ in Double(Int.random(in: 0...3, using: &random)) / 1000 }
        let runs = Locked((counts: [Int](repeating: 0, count: pauses.count), now: 0, most: 0))
        await withTaskGroup(of: Void.self) { group in
            for (index, pause) in pauses.enumerated() {
                group.addTask {
                    await withTaskExecutorPreference(executor) {
                        runs.withLock { $0.counts[index] += 1; $0.now += 1; $0.most = max($0.most, $0.now) }
                        Self.pause(pause)
                        runs.withLock { $0.now -= 1 }
                    }
                }
            }
        }
        let seen = runs.withLock { $0 }
        #expect(seen.counts.allSatisfy { $0 == 1 } && seen.now == 0)
        #expect(seen.most <= maximumThreads && executor.threadCount <= maximumThreads)
        try await Self.until { executor.threadCount == 0 }
        #expect(executor.threadCount == 0 && executor.waitingJobCount == 0)
    }

    /// Waits, polling, up to 5 s for `condition`.
    static func until(_ condition: () -> Bool) async throws {
        for _ in 0..<500 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
    }

    /// A file's statements mostly use the CPU: its async writes and reads run in place.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test func aFileStoresAsyncWorkStaysInPlace() async throws {
        let folder = try TemporaryFolder()
        for residency in [Store.Residency.onDemand, .resident] {
            let store = try Store(.file(folder.file("\(residency).sqlite")), schema: ChatModelsSchema.self, options: .init(residency: residency))
            #expect(try await !store.write { context in
                try User(id: "u1", name: "Ada").save(to: &context)
                return BlockingWorkExecutor.currentThreadIsOurs
            })
            #expect(try await store.read { context in
                User.query("u1", in: context).resolve()?.name == "Ada" && !BlockingWorkExecutor.currentThreadIsOurs
            })
            #expect(!store.observe(User.query(in: store.context).sorted(by: \.name)).readsServer)
        }
        let memory = try Store(.memory, schema: ChatModelsSchema.self)
        #expect(try await !memory.write { _ in BlockingWorkExecutor.currentThreadIsOurs })
    }

    /// An async write to a file another store is writing to waits for it on the store's
    /// threads: more of them than the pool has threads, while the other store's write ends
    /// only once a task on the pool saw them all find it. Were their waits holding the
    /// pool's threads, it never would, and they would fail when their lock timeout ran out.
    /// (Timeouts are long: in the whole suite, long synchronous tests hold the pool's
    /// threads for minutes, and this test's tasks wait their turn.)
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test func aFileWriteWaitingForAnotherStoresWaitsOnTheStoresThreads() async throws {
        let folder = try TemporaryFolder()
        for residency in [Store.Residency.onDemand, .resident] {
            let url = folder.file("\(residency).sqlite")
            let holder = try Store(.file(url), schema: ChatModelsSchema.self)
            let writers = try (0..<CooperativePoolGate.waiters).map { _ in
                try Store(.file(url), schema: ChatModelsSchema.self, options: .init(lockTimeout: 600, residency: residency))
            }
            let (holding, release) = (DispatchSemaphore(value: 0), DispatchSemaphore(value: 0))
            Thread {
                try? holder.write { context in
                    try User(id: "holder", name: "Hal").save(to: &context)
                    holding.signal()
                    _ = release.wait(timeout: .now() + 600)
                }
            }.start()
            holding.wait()
            let moved = try await withThrowingTaskGroup(of: Bool.self) { group in
                for (index, writer) in writers.enumerated() {
                    group.addTask {
                        try await writer.write { context in
                            try User(id: "u\(index)", name: "Ada").save(to: &context)
                            return BlockingWorkExecutor.currentThreadIsOurs
                        }
                    }
                }
                group.addTask {
                    while writers.map(\.asyncWritesBehindOtherWriters).reduce(0, +) < writers.count {
                        try await Task.sleep(for: .milliseconds(10))
                    }
                    release.signal()
                    return true
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(moved.count == writers.count + 1 && moved.allSatisfy { $0 }, "\(residency)")
            #expect(holder.context.count(of: User.self) == writers.count + 1)
            // With no other writer, a file's write stays in place.
            #expect(try await !writers[0].write { _ in BlockingWorkExecutor.currentThreadIsOurs })
        }
    }

    /// A live query that reads a server runs each evaluation on the store's threads.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test func aLiveQueryReadingAServerEvaluatesOnTheStoresThreads() async throws {
        let store = try Store(.memory, schema: ChatModelsSchema.self)
        let results = store.observe(User.query(in: store.context).sorted(by: \.name))
        for readsServer in [true, false] {
            // The same live query, noting where its graph is taken (it is then given none).
            let ranOnOurs = Locked<Bool?>(nil)
            let (signals, signal) = AsyncStream.makeStream(of: Void.self)
            signal.yield()
            let noting = LiveResults(signals: signals, current: {
                ranOnOurs.withLock { $0 = BlockingWorkExecutor.currentThreadIsOurs }
                return nil
            }, state: results.state, token: results.token, readsServer: readsServer)
            var iterator = noting.makeAsyncIterator()
            _ = await iterator.next()
            #expect(ranOnOurs.withLock { $0 } == readsServer)
        }
    }
}

/// A value several threads change under a lock.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }
}
