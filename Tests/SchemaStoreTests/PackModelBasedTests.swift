import ChatModels
import DeterministicRandom
import Foundation
import SchemaRuntime
import SchemaStore
import Testing

/// Random writes to a store over two packs, against a plain context holding the same
/// content (the reference): after every step the unified view equals the reference; after
/// every reopen, the reopened store equals the graph before closing (overrides, tombstones
/// and replaced link slots read back exactly); the packs' files never change; and reverting
/// a whole pack brings every one of its entities back as the pack has it.
@Suite struct PackModelBasedTests {
    @Test(arguments: SoakSeeds.seeds([11, 12, 13]), [Store.Residency.resident, .onDemand])
    func unifiedViewMatchesTheReference(seed: UInt64, residency: Store.Residency) throws {
        var random = SplitMix64(seed: seed)
        let fixture = try PackFixtures.Installed()
        let (folder, directory, library) = (fixture.folder, fixture.directory, fixture.library)
        let checksums = try library.installed.map(PackFixtures.checksum)
        func open() throws -> Store { try Store(.file(folder.file()), schema: ChatModelsSchema.self, packs: directory, options: .init(residency: residency)) }
        // The reference is a plain graph: the store's as a resident store reads it.
        func readBack() throws -> Context {
            let resident = try Store(.file(folder.file()), schema: ChatModelsSchema.self, packs: directory, options: .init(readOnly: true, residency: .resident))
            defer { resident.close() }
            return resident.context
        }
        var store = try open()
        #expect(store.readsOnDemand == (residency == .onDemand))
        var reference = try PackFixtures.reference()
        let initial = try StoreSnapshot(store.context, saveTimes: false), expected = try StoreSnapshot(reference, saveTimes: false)
        try #require(initial == expected, "\(initial)\n---\n\(expected)")
        var history: [String] = []
        for stepNumber in 0..<200 {
            let (name, step) = StoreModelBasedTests.randomStep(&random)
            history.append(name)
            let referenceResult = Result { try reference.transaction(step) }
            let storeResult = Result { try store.write(step) }
            #expect((try? referenceResult.get()) != nil ? (try? storeResult.get()) != nil : (try? storeResult.get()) == nil,
                    "step \(stepNumber) \(name): the store and the reference disagree on whether it throws")
            try #require(try StoreSnapshot(store.context, saveTimes: false) == StoreSnapshot(reference, saveTimes: false),
                         "after step \(stepNumber) \(name)\nhistory: \(history.suffix(8))")
            if stepNumber % 20 == 19 {
                let written = try StoreSnapshot(store.context)
                let edits = editSummary(store)
                store.close()
                store = try open()
                try #require(try StoreSnapshot(store.context) == written, "reopened after step \(stepNumber)\nhistory: \(history.suffix(20))")
                #expect(editSummary(store) == edits, "edits changed on reopening after step \(stepNumber)")
                reference = try readBack()
            }
            if stepNumber % 50 == 49 {
                let pack = stepNumber % 100 == 49 ? PackFixtures.starterID : PackFixtures.extraID
                // Reverting can throw where a save would (a user message needing a pack
                // chat); then nothing changes.
                let before = try StoreSnapshot(store.context)
                do {
                    try store.revertAll(inPack: pack)
                    // What remains edited are lists that keep the user's own entities.
                    let packContext = try library.installed.first { $0.manifest.id == pack }!.openStore(schema: ChatModelsSchema.self)
                    defer { packContext.close() }
                    func check<Entity: PersistentEntity & Equatable>(_ type: Entity.Type) {
                        let edits = store.edits(of: type, inPack: pack)
                        #expect(edits.deleted.isEmpty, "\(Entity.entityName) deleted after reverting \(pack) at step \(stepNumber)")
                        for id in edits.edited {
                            #expect(store.context.find(type, id: id) == packContext.context.find(type, id: id),
                                    "\(Entity.entityName) \(id) differs after reverting \(pack) at step \(stepNumber)")
                        }
                    }
                    check(User.self)
                    check(Chat.self)
                    check(Message.self)
                    check(Attachment.self)
                } catch {
                    #expect(try StoreSnapshot(store.context) == before)
                }
                reference = try readBack()
            }
        }
        store.close()
        #expect(try library.installed.map(PackFixtures.checksum) == checksums, "a pack file changed")
    }

    /// Every edited and deleted pack entity, as text.
    func editSummary(_ store: Store, packs: [UUID] = [PackFixtures.starterID, PackFixtures.extraID]) -> String {
        var lines: [String] = []
        for pack in packs {
            func add<Entity: PersistentEntity>(_ type: Entity.Type) {
                let edits = store.edits(of: type, inPack: pack)
                if !edits.isEmpty { lines.append("\(pack) \(Entity.entityName) edited \(edits.edited) deleted \(edits.deleted)") }
            }
            add(User.self)
            add(Chat.self)
            add(Message.self)
            add(Attachment.self)
        }
        return lines.joined(separator: "\n")
    }
}
