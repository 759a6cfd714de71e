import ChatModels
import ChatWorkloads
import Foundation
import SchemaRuntime
@testable import SchemaStore
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// On a server, a store's async API waits for the server on threads of its own: called from
/// code isolated to no actor, writes, reads on demand and live queries on demand hold none
/// of the threads Swift runs tasks on (``BlockingWork``). From an actor, in place.
@Suite(.serialized) struct AsyncServerWorkTests {
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test func asyncWorkOnAServerWaitsOnTheStoresThreads() async throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("async_threads")
        for residency in [Store.Residency.onDemand, .resident] {
            let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: .init(residency: residency))
            defer { store.close() }
            #expect(try await store.write { context in
                try User(id: "u-\(residency)", name: "Ada").save(to: &context)
                return BlockingWorkExecutor.currentThreadIsOurs
            })
            // A resident store reads its graph in memory: in place.
            #expect(try await store.read { context in
                User.query("u-\(residency)", in: context).resolve()?.name == "Ada" && BlockingWorkExecutor.currentThreadIsOurs
            } == (residency == .onDemand))
            #expect(store.observe(User.query(in: store.context).sorted(by: \.name)).readsServer == (residency == .onDemand))
            #expect(try await Self.writeOnTheMainActor(store) == false)
        }
    }

    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @MainActor static func writeOnTheMainActor(_ store: Store) async throws -> Bool {
        try await store.write { context in
            try User(id: "u-main", name: "Bob").save(to: &context)
            return BlockingWorkExecutor.currentThreadIsOurs
        }
    }

    /// More stores than the cooperative pool has threads each write, and then read, waiting
    /// inside for a gate that one more task opens.
    @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
    @Test func storesWaitingForTheServerHoldNoThreadOfThePool() async throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("async_gate")
        let stores = try (0..<CooperativePoolGate.waiters).map { _ in
            try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: .init(residency: .onDemand))
        }
        defer { for store in stores { store.close() } }
        #expect(try await CooperativePoolGate.waitsEndOpen { index, wait in
            try await stores[index].write { context in
                try User(id: "u\(index)", name: "Ada").save(to: &context)
                return wait()
            }
        })
        #expect(try await CooperativePoolGate.waitsEndOpen { index, wait in
            try await stores[index].read { context in User.query("u\(index)", in: context).resolve() != nil && wait() }
        })
    }
}
