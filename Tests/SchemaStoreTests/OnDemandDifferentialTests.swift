import ChatModels
import ChatWorkloads
import DeterministicRandom
import Foundation
@_spi(SchemaStoreTesting) import SchemaStore
import SchemaRuntime
import Testing

/// An on-demand store and a resident one, fed the same random writes (the model-based
/// store test's), answer random queries alike: every answer and every order, ties included,
/// after every few writes, over filters SQL answers exactly, filters it only narrows,
/// sorts it pushes down, limits, offsets, counts, aggregates, grouping, pages, relation
/// filters and nested queries.
@Suite struct OnDemandDifferentialTests {
    static func temporaryFile() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ondemand-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("store.sqlite")
    }

    /// An entity deleted and saved again in one write moves to the end of storage order,
    /// whichever way the store reads: a resident context gives its id a new key, a context
    /// reading on demand keeps the key and its store stores the row anew. Also once reopened.
    @Test func anEntityDeletedAndSavedAgainMovesLastOnDemandAsResident() throws {
        for residency in [Store.Residency.resident, .onDemand] {
            let url = try Self.temporaryFile()
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let store = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(residency: residency))
            let (messages, chat) = try DeletedAndSavedAgain.write(to: store)
            #expect(messages == DeletedAndSavedAgain.expected && chat == DeletedAndSavedAgain.expected, "\(residency)")
            store.close()
            let reopened = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(readOnly: true, residency: residency))
            #expect(try reopened.read(DeletedAndSavedAgain.messages) == DeletedAndSavedAgain.expected, "\(residency), reopened")
        }
    }

    @Test(arguments: SoakSeeds.seeds(Array(0..<6)))
    func onDemandAnswersAsResident(seed: UInt64) throws {
        var random = SplitMix64(seed: seed &* 7919 &+ 11)
        let url = try Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        // Opened on demand, the writer creates the SQL indexes the reader's queries use (its
        // writes then run on the whole graph).
        let writer = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(residency: .onDemand))
        let reader = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(readOnly: true, residency: .onDemand))
        #expect(reader.readsOnDemand)
        var compared = 0
        for step in 0..<60 {
            let (_, write) = StoreModelBasedTests.randomStep(&random)
            _ = try? writer.write { try write(&$0) }
            guard step % 4 == 3 else { continue }
            // A resident store opened now reads the file as the on-demand one does (storage
            // order for ties, which a store that wrote its graph may not have).
            let resident = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(readOnly: true, residency: .resident))
            // The reference: a file opens on demand unless told otherwise.
            #expect(!resident.readsOnDemand)
            let onDemand = reader.context
            for _ in 0..<12 {
                let (name, answer) = RandomChatQuery.next(&random)
                let expected = answer(resident.context)
                let actual = answer(onDemand)
                if actual != expected {
                    Issue.record("seed \(seed) step \(step): \(name)\n  on demand: \(actual.prefix(400))\n  resident:  \(expected.prefix(400))")
                }
                compared += 1
            }
            resident.close()
        }
        #expect(compared > 100)
        // SQL narrowed most queries: the whole graph was read only for what SQL cannot narrow.
        let statistics = reader.onDemandStatistics
        #expect(statistics.materializations > statistics.wholeGraphReads * 3, "\(statistics)")
    }

    /// Queries inside a write see the write's own changes, on demand as on a resident graph:
    /// two files fed the same writes, one written on demand, the other by a resident store
    /// reopened before each write (so both order ties by storage); each write runs random
    /// steps, then random queries on its own context, and the answers must agree. Soaked
    /// over more seeds, a few (8 in 150) meet the two orders docs/Persistence.md says
    /// differ: an id without a row that the write saves (the resident graph met it at its
    /// load), and an entity deleted and saved again while one-way links name it.
    @Test(arguments: SoakSeeds.seeds(Array(0..<4)))
    func queriesInAWriteSeeItsChanges(seed: UInt64) throws {
        var random = SplitMix64(seed: seed &* 104_729 &+ 3)
        let onDemandURL = try Self.temporaryFile(), residentURL = try Self.temporaryFile()
        defer {
            try? FileManager.default.removeItem(at: onDemandURL.deletingLastPathComponent())
            try? FileManager.default.removeItem(at: residentURL.deletingLastPathComponent())
        }
        let onDemand = try Store(.file(onDemandURL), schema: ChatModelsSchema.self, options: .init(residency: .onDemand))
        var compared = 0
        for round in 0..<40 {
            let steps = (0..<Int.random(in: 1...3, using: &random)).map { _ in StoreModelBasedTests.singleStep(&random) }
            let queries = (0..<3).map { _ in RandomChatQuery.next(&random) }
            let write: @Sendable (inout Context) throws -> [String] = { context in
                for step in steps { try? step.step(&context) }
                return queries.map { $0.answer(context) }
            }
            let resident = try Store(.file(residentURL), schema: ChatModelsSchema.self, options: .init(residency: .resident))
            // The reference: a file opens on demand unless told otherwise.
            #expect(!resident.readsOnDemand)
            // A write may throw at its end (a required link its steps left empty): then on
            // both sides, with the same error, and neither commits.
            let expectedResult = Result { try resident.write(write) }
            resident.close()
            let actualResult = Result { try onDemand.write(write) }
            guard case .success(let expected) = expectedResult, case .success(let actual) = actualResult else {
                #expect(String(describing: actualResult) == String(describing: expectedResult), "seed \(seed) round \(round): \(steps.map(\.name))")
                compared += queries.count
                continue
            }
            // Save times of this write's saves are each store's own clock: not compared.
            for (query, (actual, expected)) in zip(queries, zip(actual, expected)) where actual != expected && !query.name.hasPrefix("save times") {
                Issue.record("seed \(seed) round \(round): \(query.name) after \(steps.map(\.name))\n  on demand: \(actual.prefix(400))\n  resident:  \(expected.prefix(400))")
            }
            compared += queries.count
        }
        #expect(compared == 120)
        #expect(onDemand.readsOnDemand)
        let reopened = try Store(.file(residentURL), schema: ChatModelsSchema.self, options: .init(readOnly: true))
        #expect(try StoreSnapshot(onDemand.context, saveTimes: false) == StoreSnapshot(reopened.context, saveTimes: false))
    }
}
