import ChatModels
import Foundation
import SchemaRuntime
@testable import SchemaStore
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// A store on a server frees the graph a small write replaced while its next round trip
/// waits for the server (``GraphRetirement``), not before the write returns.
@Suite(.serialized) struct GraphRetirementTests {
    /// The waiting work runs once the statements are sent and before their answers come:
    /// here, while the server sleeps.
    @Test func aConnectionRunsItsWaitingWorkWhileTheServerAnswers() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let connection = try PostgresConnection(cluster.configuration())
        defer { connection.close() }
        let runs = RunTimes()
        connection.whileWaiting = { runs.record() }
        let started = Date()
        #expect(try connection.execute("SELECT pg_sleep(0.3), 1")[0][1] == .integer(1))
        let pipelined = Date()
        #expect(try connection.executeEach([("SELECT 2", []), ("SELECT pg_sleep(0.3), 3", [])]).last?.first?.last == .integer(3))
        let times = runs.times
        #expect(times.count == 2)
        if times.count == 2 {
            // Each ran before its statements' answers: long before the server's sleep ended.
            #expect(times[0].timeIntervalSince(started) < 0.2)
            #expect(times[1].timeIntervalSince(pipelined) < 0.2)
        }
    }

    /// A resident store keeps the graph each small write replaced until its next round trip,
    /// which frees it; a big write's is freed at once. Snapshots taken before stay whole.
    @Test func aSmallWritesReplacedGraphIsFreedByTheNextRoundTrip() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("retirement_resident")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .resident))
        defer { store.close() }
        let retirement = try #require(store.retirement)
        try AssumedNewWriteTests.seed(store)
        #expect(retirement.keptCount == 1)
        let seeded = store.context
        try store.write { context in try Message(id: "m2", text: "second", author: .id("u1"), chat: .id("c1")).save(to: &context) }
        // The seed's graph went with this write's round trip; this write's is kept.
        #expect(retirement.keptCount == 1)
        try store.write { context in
            for n in 0...GraphRetirement.mostRowsKept {
                try Message(id: "bulk\(n)", text: "bulk", author: .id("u1"), chat: .id("c1")).save(to: &context)
            }
        }
        #expect(retirement.keptCount == 0)
        #expect(Message.query(in: seeded).resolve().map(\.id) == ["m1"])
        #expect(Message.query(in: store.context).resolve().count == GraphRetirement.mostRowsKept + 3)
    }

    /// The same on demand; a store on a file has no round trip to free in, and keeps nothing.
    @Test func onDemandWritesAreFreedSoAndFileStoresKeepNothing() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, _) = try AssumedNewWriteTests.store(cluster, "retirement_on_demand")
        defer { store.close() }
        let retirement = try #require(store.retirement)
        try AssumedNewWriteTests.seed(store)
        #expect(retirement.keptCount == 1)
        try store.write { context in try Message(id: "m2", text: "second", author: .id("u1"), chat: .id("c1")).save(to: &context) }
        #expect(retirement.keptCount == 1)
        #expect(try store.read { Message.query(in: $0).resolve().count } == 2)

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("retirement-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try Store(.file(folder.appendingPathComponent("chat.store")), schema: ChatModelsSchema.self)
        defer { file.close() }
        try AssumedNewWriteTests.seed(file)
        #expect(file.retirement == nil)
    }
}

/// When a connection ran its waiting work.
private final class RunTimes: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [Date] = []

    func record() { lock.withLock { recorded.append(Date()) } }
    var times: [Date] { lock.withLock { recorded } }
}
