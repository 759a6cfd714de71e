import Foundation
import LadderV1
import LadderV2
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
}
