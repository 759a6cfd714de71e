import ChatModels
import ChatWorkloads
import DeterministicRandom
import Foundation
import SchemaRuntime
import SchemaStore
import Testing

/// A child process (`store-crash-helper`) commits numbered writes in a loop and is killed
/// with SIGKILL at random moments. After each kill the reopened store holds exactly the
/// first k writes, for a k no smaller than the number of commits the child reported.
@Suite struct CrashSafetyTests {
    static var helper: URL { CrashHelper.url }

    /// Starts the helper committing numbered writes from `firstWrite` to the store at `url`.
    static func startHelper(_ url: URL, firstWrite: Int) throws -> HelperProcess {
        try CrashHelper.start([url.path, "\(firstWrite)", "1000000"])
    }

    /// Kills the helper with SIGKILL; the numbers of the writes it reported committed.
    static func kill(_ writer: HelperProcess) -> [Int] {
        writer.kill()
        return writer.lines.compactMap { Int($0) }
    }

    @Test func killedWritersLeaveAPrefixOfTheirCommits() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.helper.path), "store-crash-helper was not built next to the tests")
        let folder = try TemporaryFolder()
        let url = folder.file()
        var random = SplitMix64(seed: 42)
        var committed = 0
        var kills = 0
        for round in 0..<25 {
            let writer = try Self.startHelper(url, firstWrite: committed)
            // Kill at a random moment: often mid-commit, sometimes while still opening.
            Thread.sleep(forTimeInterval: Double.random(in: 0.02...0.3, using: &random))
            let reported = Self.kill(writer)
            if writer.wasKilled { kills += 1 }
            let store = try Store(.file(url), schema: ChatModelsSchema.self)
            let context = store.context
            let ids = Set(context.ids(of: Message.self))
            let count = ids.count
            #expect(ids == Set((0..<count).map { "m\($0)" }), "round \(round): the messages are not a prefix of the writes")
            #expect(count >= (reported.last.map { $0 + 1 } ?? committed), "round \(round): a reported commit is missing")
            if count > 0 {
                #expect(context.find(Chat.self, id: "counter")?.title == "\(count - 1)", "round \(round): a write was kept in part")
                #expect(Chat.query("counter", in: context).with(\.$messages).resolve()?.messages?.count == count)
            }
            committed = count
            store.close()
        }
        #expect(kills >= 20)
        #expect(committed > 100, "only \(committed) writes committed in all rounds")
    }

    /// Whether `context` holds exactly the first k writes of the helper, for some k; that k.
    static func writesPrefix(_ context: Context) -> Int? {
        let ids = Set(context.ids(of: Message.self))
        guard ids == Set((0..<ids.count).map { "m\($0)" }) else { return nil }
        if ids.isEmpty { return 0 }
        guard context.find(Chat.self, id: "counter")?.title == "\(ids.count - 1)" else { return nil }
        return ids.count
    }

    /// The number of whole writes in the store at `url`, read by a store opened afresh.
    static func writesOnDisk(_ url: URL) throws -> Int {
        let store = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(readOnly: true))
        defer { store.close() }
        return try #require(writesPrefix(store.context), "the file holds part of a write")
    }

    /// A read-only store in this process follows the helper's commits while it writes and is
    /// killed: every graph it shows holds whole writes only, and after each kill it catches
    /// up with every commit the helper reported, without reopening. Resident (it follows the
    /// commit log) and on demand (each context is an SQL snapshot); both tell their observers
    /// of every commit once.
    @Test(arguments: [Store.Residency.resident, .onDemand])
    func aReaderFollowsAWriterInAnotherProcessThroughKills(residency: Store.Residency) async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.helper.path), "store-crash-helper was not built next to the tests")
        let folder = try TemporaryFolder()
        let url = folder.file()
        try Store(.file(url), schema: ChatModelsSchema.self).close()
        let reader = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(readOnly: true, residency: residency))
        #expect(reader.readsOnDemand == (residency == .onDemand))
        // Its observers hear every commit once, each change set showing whole writes. (The
        // test is async, so that its last wait leaves the consumer's task a thread.)
        let observed = ObservationTests.Collector(reader.changes(to: Message.self))
        var random = SplitMix64(seed: 7)
        var committed = 0
        var seen = Set<Int>()
        for round in 0..<8 {
            let writer = try Self.startHelper(url, firstWrite: committed)
            let end = Date().addingTimeInterval(Double.random(in: 0.1...0.4, using: &random))
            while Date() < end {
                let context = reader.context
                let prefix = Self.writesPrefix(context)
                #expect(prefix != nil, "round \(round): the reader shows part of a write")
                if let prefix { seen.insert(prefix) }
                // Blocking, as a busy reader would: the consumer's task catches up afterwards.
                usleep(3000)
            }
            let reported = Self.kill(writer)
            let acknowledged = reported.last.map { $0 + 1 } ?? committed
            // The file may hold one write more than the helper reported (killed between its
            // commit and its report): the store opened afresh says how many there are, and
            // the reader must reach exactly that, or its observers hear a write the test
            // did not count.
            let onDisk = try Self.writesOnDisk(url)
            #expect(onDisk >= acknowledged, "round \(round): a reported commit is missing from the file")
            #expect(await eventually { Self.writesPrefix(reader.context) == onDisk },
                    "round \(round): the reader shows \(Self.writesPrefix(reader.context) ?? -1) writes, the file \(onDisk) (\(acknowledged) reported)")
            committed = onDisk
        }
        // The reader saw the store grow while it was written, not only after each kill.
        #expect(seen.count > 8, "the reader saw only \(seen.count) states")
        #expect(committed > 50, "only \(committed) writes committed in all rounds")
        func inserted() -> [String] { observed.values.flatMap { $0.changes(Message.self)?.inserted ?? [] } }
        #expect(await eventually(seconds: 120) { inserted().count >= committed }, "observers heard \(inserted().count) of \(committed) writes in \(observed.values.count) change sets")
        let heard = inserted()
        let duplicates = Dictionary(grouping: heard, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
        let unexpected = Set(heard).subtracting((0..<committed).map { "m\($0)" }).sorted()
        #expect(heard.count == committed && duplicates.isEmpty && unexpected.isEmpty,
                "each write heard once: \(heard.count) inserts heard for \(committed) writes; heard twice \(duplicates.prefix(10)), never written \(unexpected.prefix(10))")
        #expect(observed.values.allSatisfy { Self.writesPrefix($0.context) != nil }, "a change set shows part of a write")
        #expect(reader.readsOnDemand == (residency == .onDemand))
        reader.close()
    }
}
