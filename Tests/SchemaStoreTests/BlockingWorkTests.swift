import ChatModels
import ChatWorkloads
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
