import ChatModels
import DeterministicRandom
import Foundation
import SchemaRuntime
import SchemaStore
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// Several processes on one PostgreSQL database (`store-crash-helper` children): writers
/// killed with SIGKILL mid-write lose nothing they reported and leave nothing in part, and
/// four writers at once lose no update and each sees every other's commits.
@Suite(.serialized) struct PostgresProcessTests {
    static let helper: URL = {
        var directory = Bundle.main.bundleURL
        while !FileManager.default.fileExists(atPath: directory.appendingPathComponent("store-crash-helper").path),
              directory.pathComponents.count > 1 {
            directory.deleteLastPathComponent()
        }
        return directory.appendingPathComponent("store-crash-helper")
    }()

    static func start(_ arguments: [String]) throws -> (Process, Pipe) {
        let output = Pipe()
        let process = Process()
        process.executableURL = helper
        process.arguments = arguments
        process.standardOutput = output
        try process.run()
        return (process, output)
    }

    static func output(_ pipe: Pipe) -> [String] {
        String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    @Test func killedWritersLeaveAPrefixOfTheirCommits() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        try #require(FileManager.default.isExecutableFile(atPath: Self.helper.path), "store-crash-helper was not built next to the tests")
        let configuration = try PostgresStoreTests.database(cluster, "killed")
        var random = SplitMix64(seed: 11)
        var committed = 0, kills = 0
        for round in 0..<10 {
            let (process, pipe) = try Self.start(["postgres", cluster.socketFolder, "killed", "\(committed)", "1000000"])
            Thread.sleep(forTimeInterval: Double.random(in: 0.1...0.4, using: &random))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            if process.terminationReason == .uncaughtSignal { kills += 1 }
            let reported = Self.output(pipe).compactMap { Int($0) }
            // The next store's first write waits for no lock the killed one held: the server
            // ended its transaction with its connection.
            let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
            let prefix = CrashSafetyPrefix.writes(store.context)
            #expect(prefix != nil, "round \(round): a write was kept in part")
            let count = prefix ?? 0
            #expect(count >= (reported.last.map { $0 + 1 } ?? committed), "round \(round): a reported commit is missing")
            try store.write { try User(id: "check", name: "round \(round)").save(to: &$0) }
            committed = count
            store.close()
        }
        #expect(kills >= 8)
        #expect(committed > 20, "only \(committed) writes committed in all rounds")
    }

    /// Four processes increment one counter at once, each read-modify-write in its own
    /// write: the total is every increment (none lost to a concurrent write), every
    /// message is there, and each process saw the final total through its own store.
    @Test func fourProcessesWritingAtOnceLoseNothingAndSeeEachOther() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        try #require(FileManager.default.isExecutableFile(atPath: Self.helper.path), "store-crash-helper was not built next to the tests")
        let configuration = try PostgresStoreTests.database(cluster, "four")
        // Created first, so the children do not race to create the tables.
        try Store(.postgres(configuration), schema: ChatModelsSchema.self).close()
        let writers = 4, writes = 40
        let children = try (0..<writers).map { index in
            try Self.start(["increment", cluster.socketFolder, "four", "w\(index)", "\(writes)", "\(writers * writes)"])
        }
        for (index, (process, pipe)) in children.enumerated() {
            let lines = Self.output(pipe)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "writer \(index) failed")
            #expect(lines.last == "saw \(writers * writes)", "writer \(index): \(lines)")
        }
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        #expect(store.context.find(User.self, id: "counter")?.age == writers * writes)
        let messages = Set(store.context.ids(of: Message.self))
        #expect(messages == Set((0..<writers).flatMap { writer in (0..<writes).map { "w\(writer)-\($0)" } }))
    }
}

/// Whether `context` holds exactly the first k numbered writes of the helper, for some k;
/// that k (see `store-crash-helper`).
enum CrashSafetyPrefix {
    static func writes(_ context: Context) -> Int? {
        let ids = Set(context.ids(of: Message.self))
        guard ids == Set((0..<ids.count).map { "m\($0)" }) else { return nil }
        if ids.isEmpty { return 0 }
        guard context.find(Chat.self, id: "counter")?.title == "\(ids.count - 1)" else { return nil }
        return ids.count
    }
}
