import Foundation
import LadderV1
import LadderV2
import LadderV3
import LadderV6
import SchemaRuntime
import SchemaStore
import Testing

/// Packs written with an older schema are migrated as they are installed; the pack itself
/// is never written.
@Suite struct PackMigrationTests {
    @Test func anOlderPackIsMigratedOnInstall() throws {
        let folder = try TemporaryFolder()
        let pack = try Pack.create(at: folder.url.appendingPathComponent("library.pack"), manifest: PackManifest(title: "Library", version: "1"),
                                   schema: LadderV1Schema.self) { context in
            try LadderV1.Book(id: "b1", title: "Notes", pages: 12, author: .relation(LadderV1.Author(id: "a1", name: "Ada", born: 1815)))
                .save(to: &context)
        }
        let original = try Data(contentsOf: pack.storeURL)
        let library = try PackLibrary(directory: folder.url.appendingPathComponent("packs"), schema: LadderV2Schema.self)
        #expect(try library.install(from: pack.url) == .installed)
        let installed = try #require(try library.installed.first)
        #expect(installed.manifest.schemaFingerprint == LadderV2Schema.fingerprint)
        let store = try installed.openStore(schema: LadderV2Schema.self)
        let book = try #require(LadderV2.Book.query("b1", in: store.context).with(\.$author).resolve())
        store.close()
        #expect(book.title == "Notes" && book.pages == 12 && book.rating == 2.5 && book.author?.name == "Ada")
        #expect(try Data(contentsOf: pack.storeURL) == original)

        // A pack whose migration needs code (v6 renames and changes types) is refused, and
        // nothing is installed.
        let strict = try PackLibrary(directory: folder.url.appendingPathComponent("strict"), schema: LadderV6Schema.self)
        #expect(throws: StoreError.self) { try strict.install(from: pack.url) }
        #expect(try strict.installed.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: strict.directory.path).isEmpty)
    }

    /// The user's edits of pack entities follow a schema change that renames the entity and
    /// its relation: the installed pack and the user store both migrate, and the edits still
    /// apply (they name the entity and the link table).
    @Test func editsOfPackEntitiesSurviveARenamingMigration() throws {
        let folder = try TemporaryFolder()
        let pack = try Pack.create(at: folder.url.appendingPathComponent("library.pack"), manifest: PackManifest(title: "Library", version: "1"),
                                   schema: LadderV2Schema.self) { context in
            try LadderV2.Author(id: "a1", name: "Ada", books: .relation([LadderV2.Book(id: "b1", title: "Notes")])).save(to: &context)
            try LadderV2.Author(id: "a2", name: "Charles").save(to: &context)
        }
        let packs = folder.url.appendingPathComponent("packs"), user = folder.url.appendingPathComponent("user.sqlite")
        let old = try Store(.file(user), schema: LadderV2Schema.self, packs: packs)
        try old.installPack(from: pack.url)
        try old.write { context in
            var ada = try #require(context.find(LadderV2.Author.self, id: "a1"))
            ada.name = "Ada Lovelace"
            try ada.save(to: &context)
            try LadderV2.Book(id: "mine", title: "My book", author: .id("a1")).save(to: &context)
            try context.find(LadderV2.Author.self, id: "a2")!.delete(from: &context)
        }
        old.close()

        let new = try Store(.file(user), schema: LadderV3Schema.self, packs: packs)
        let ada = try #require(LadderV3.Writer.query("a1", in: new.context).with(\.$works).resolve())
        #expect(ada.fullName == "Ada Lovelace")
        #expect(ada.works?.map(\.id) == ["b1", "mine"])
        #expect(new.context.find(LadderV3.Writer.self, id: "a2") == nil)
        let edits = new.edits(of: LadderV3.Writer.self, inPack: pack.manifest.id)
        #expect(edits.edited == ["a1"] && edits.deleted == ["a2"])
        try new.revertAll(inPack: pack.manifest.id)
        #expect(new.context.find(LadderV3.Writer.self, id: "a1")?.fullName == "Ada")
        #expect(new.context.find(LadderV3.Writer.self, id: "a2") != nil)
        new.close()
    }

    /// Soft-deleted archives follow renames of their entity, its fields and its relations.
    @Test func archivesFollowARenamingMigration() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("archives.sqlite")
        let old = try Store(.file(url), schema: LadderV2Schema.self)
        try old.write { context in
            try LadderV2.Author(id: "a1", name: "Ada", born: 1815, books: .relation([LadderV2.Book(id: "b1", title: "Notes")])).save(to: &context)
            try LadderV2.Tag(id: "t1", label: "math").save(to: &context)
            try context.find(LadderV2.Author.self, id: "a1")!.asDeleted(in: context)!.save(to: &context)
            try context.find(LadderV2.Tag.self, id: "t1")!.asDeleted(in: context)!.save(to: &context)
        }
        old.close()

        let new = try Store(.file(url), schema: LadderV3Schema.self)
        let writer = try #require(Deleted<LadderV3.Writer>.query(in: new.context).resolve().first)
        #expect(writer.entity.fullName == "Ada" && writer.entity.born == 1815 && writer.entity.$works.ids == ["b1"])
        #expect(Deleted<LadderV3.Tag>.query(in: new.context).resolve().first?.entity.name == "math")
        try new.write { context in try Deleted<LadderV3.Writer>.query(in: context).resolve()[0].restore(in: &context) }
        #expect(LadderV3.Writer.query("a1", in: new.context).with(\.$works).resolve()?.works?.map(\.id) == ["b1"])
        new.close()
    }
}
