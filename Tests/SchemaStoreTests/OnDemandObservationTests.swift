import ChatModels
import DeterministicRandom
import Foundation
@_spi(SchemaStoreTesting) import SchemaStore
import SchemaRuntime
import Testing

/// Observing a store that reads on demand: what other stores commit reaches its change
/// streams and live queries from the file's commit log, as a resident store would report it,
/// and observing never loads the graph.
@Suite struct OnDemandObservationTests {
    typealias Collector = ObservationTests.Collector
    // Waits allow two minutes: a consumer's task runs on the shared pool, which other suites'
    // compiler runs can hold for a minute on a two-core machine.

    static func stores() throws -> (writer: Store, reader: Store, folder: TemporaryFolder) {
        let folder = try TemporaryFolder()
        // A resident writer: the reference compares its graphs before and after each commit.
        let writer = try Store(.file(folder.file()), schema: ChatModelsSchema.self, options: .init(residency: .resident))
        let reader = try Store(.file(folder.file()), schema: ChatModelsSchema.self, options: .init(readOnly: true, residency: .onDemand))
        return (writer, reader, folder)
    }

    /// Random writes by another store, one at a time: each commit's changes, as the reader
    /// reports them, equal the slow reference diff of the writer's graphs before and after.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func everyCommitReachesTheReaderAsTheReferenceDescribesIt(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed &+ 100)
        let (writer, reader, folder) = try Self.stores()
        defer { _ = folder }
        let collector = Collector(reader.changes())
        var expected: [ChangeSetReference] = []
        var history: [String] = []
        for _ in 0..<120 {
            let (name, step) = StoreModelBasedTests.randomStep(&random)
            history.append(name)
            let before = writer.context
            _ = try? await writer.write(step)
            let reference = try ChangeSetReference(before: before, after: writer.context)
            guard !reference.entities.isEmpty else { continue }
            expected.append(reference)
            // One commit per check: each is reported alone.
            try #require(await collector.wait(seconds: 120) { $0.count >= expected.count }, "commit \(expected.count) never arrived")
            let reported = try #require(collector.values.last)
            try #require(ChangeSetReference(reported) == reference,
                         "commit \(expected.count): reported\n\(ChangeSetReference(reported))\nexpected\n\(reference)\nhistory: \(history.suffix(5))")
            // The change set's graph is the file after the commit.
            let (shown, written) = (try StoreSnapshot(reported.context).text, try StoreSnapshot(writer.context).text)
            #expect(shown == written, "\(zip(shown.split(separator: "\n"), written.split(separator: "\n")).filter { $0 != $1 }.prefix(3))")
        }
        #expect(collector.values.count == expected.count)
        #expect(zip(collector.values, collector.values.dropFirst()).allSatisfy { $0.commit < $1.commit })
        #expect(reader.readsOnDemand)
    }

    /// Commits that land between two checks arrive as one change set describing them together.
    @Test func commitsBetweenTwoChecksArriveTogether() async throws {
        let (writer, reader, folder) = try Self.stores()
        defer { _ = folder }
        try await writer.write { context in
            try User(id: "gone", name: "Gone").save(to: &context)
            try User(id: "kept", name: "Kept").save(to: &context)
        }
        let collector = Collector(reader.changes())
        let initial = writer.context
        // However the checks fall between these commits, the reports together say what they did.
        try await writer.write { try User(id: "new", name: "New").save(to: &$0) }
        try await writer.write { try User(id: "new", name: "Newer").save(to: &$0) }
        try await writer.write { try User(id: "kept", name: "Kept too").save(to: &$0) }
        try await writer.write { try User(id: "gone", name: "").delete(from: &$0) }
        try await writer.write { try User(id: "brief", name: "Brief").save(to: &$0) }
        try await writer.write { try User(id: "brief", name: "").delete(from: &$0) }
        try reader.refresh()
        #expect(await collector.wait(seconds: 120) { $0.last.map { User.query("new", in: $0.context).resolve()?.name == "Newer" } ?? false })
        let users = collector.values.compactMap { $0.changes(User.self) }
        let inserted = Set(users.flatMap(\.inserted)), deleted = Set(users.flatMap(\.deleted)), updated = Set(users.flatMap(\.updated))
        #expect(inserted == ["new"] || inserted == ["new", "brief"])
        #expect(deleted == ["gone"] || deleted == ["gone", "brief"])
        #expect(inserted.contains("brief") == deleted.contains("brief"))
        #expect(updated.isSuperset(of: ["kept"]) && updated.isSubset(of: ["kept", "new"]))
        #expect(try ChangeSetReference(before: initial, after: writer.context).entities["User"] == ["+new", "-gone", "~kept"])
        #expect(reader.readsOnDemand)
    }

    /// Random writes; after each, every live query of the reader shows what the query gives
    /// on the writer's graph.
    @Test(arguments: [4, 5] as [UInt64])
    func liveQueriesOfAReaderFollowTheWriter(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let (writer, reader, folder) = try Self.stores()
        defer { _ = folder }
        let queries: [ContextFreeQueryList<Message>] = [
            Chat.query("c1").related(\.$messages).sorted(by: \.timestamp),
            Message.query().filter(\.timestamp < 500).sorted(by: \.timestamp).limit(5),
            Message.query(["m1", "m2", "m3"]),
        ]
        let collectors = queries.map { Collector(reader.observe($0.with(\.$author))) }
        func ids(_ messages: [Message]) -> String {
            messages.map { "\($0.id):\($0.text):\($0.author?.name ?? "-")" }.joined(separator: ",")
        }
        for _ in 0..<60 {
            let (_, step) = StoreModelBasedTests.randomStep(&random)
            _ = try? await writer.write(step)
            for (query, collector) in zip(queries, collectors) {
                let expected = ids(query.with(\.$author).resolve(in: writer.context))
                #expect(await collector.wait(seconds: 120) { $0.last.map(ids) == expected })
            }
        }
        #expect(reader.readsOnDemand)
    }

    /// A reader that writes keeps reading on demand: its own commits and the others' reach
    /// its observers from the log, each once, in commit order.
    @Test func aReaderThatStartsWritingReportsEveryCommitOnce() async throws {
        let folder = try TemporaryFolder()
        let writer = try Store(.file(folder.file()), schema: ChatModelsSchema.self)
        let other = try Store(.file(folder.file()), schema: ChatModelsSchema.self, options: .init(residency: .onDemand))
        let collector = Collector(other.changes(to: User.self))
        try await writer.write { try User(id: "a", name: "A").save(to: &$0) }
        try await other.write { try User(id: "b", name: "B").save(to: &$0) }
        #expect(other.readsOnDemand)
        try await writer.write { try User(id: "c", name: "C").save(to: &$0) }
        #expect(await collector.wait(seconds: 120) { $0.flatMap { $0.changes(User.self)?.inserted ?? [] }.count >= 3 })
        try await Task.sleep(nanoseconds: 100_000_000)
        #expect(collector.values.flatMap { $0.changes(User.self)?.inserted ?? [] } == ["a", "b", "c"])
    }
}
