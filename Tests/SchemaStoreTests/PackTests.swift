import ChatModels
import Foundation
import SchemaRuntime
import SchemaStore
import Testing

/// Packs: the folder format, its checks, and installing into a library (docs/Packs.md).
@Suite struct PackTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    /// A pack of `users` (ids) with one chat linking them.
    @discardableResult
    func makePack(_ name: String, id: UUID = UUID(), version: PackVersion = "1.0", users: [String]) throws -> Pack {
        try Pack.create(at: folder.file(name + ".pack"), manifest: PackManifest(id: id, title: name, version: version),
                        schema: ChatModelsSchema.self) { context in
            try Chat(id: "chat-\(name)", users: .relation(users.map { User(id: $0, name: "User \($0)") })).save(to: &context)
        }
    }

    func bytes(_ url: URL) throws -> Data { try Data(contentsOf: url) }

    @Test func aCreatedPackOpensWithItsManifestAndContent() throws {
        let id = UUID()
        let created = try makePack("starter", id: id, version: "1.2.0", users: ["a", "b"])
        let pack = try Pack.open(at: created.url)
        #expect(pack.manifest == created.manifest)
        #expect(pack.manifest.id == id && pack.manifest.version == "1.2" && pack.manifest.schemaFingerprint == ChatModelsSchema.fingerprint)
        let before = try bytes(pack.storeURL)
        let store = try pack.openStore(schema: ChatModelsSchema.self)
        #expect(Set(store.context.ids(of: User.self)) == ["a", "b"])
        #expect(throws: StoreError.readOnly(path: pack.storeURL.path)) {
            try store.write { try User(id: "c", name: "C").save(to: &$0) }
        }
        store.close()
        #expect(try bytes(pack.storeURL) == before)
        #expect(throws: PackError.alreadyExists(path: created.url.path)) { try makePack("starter", users: []) }
    }

    @Test func badPackFoldersGetClearErrors() throws {
        let pack = try makePack("p", users: ["a"])
        let manifest = pack.url.appendingPathComponent(Pack.manifestFileName)
        func reason(_ json: String) throws -> String? {
            try json.write(to: manifest, atomically: true, encoding: .utf8)
            do {
                _ = try Pack.open(at: pack.url)
                return nil
            } catch let PackError.badManifest(_, reason) {
                return reason
            }
        }
        let id = pack.manifest.id.uuidString
        #expect(try reason("not json")?.contains("not a JSON object") == true)
        #expect(try reason(#"{"id": "\#(id)", "version": "1", "schemaFingerprint": "x"}"#) == #""title" is missing"#)
        #expect(try reason(#"{"id": "\#(id)", "title": "T", "version": "1.x", "schemaFingerprint": "x"}"#)?.contains("\"version\"") == true)
        #expect(try reason(#"{"id": "nope", "title": "T", "version": "1", "schemaFingerprint": "x"}"#)?.contains("\"id\"") == true)
        #expect(try reason(#"{"id": "\#(id)", "title": " ", "version": "1", "schemaFingerprint": "x"}"#) == #""title" is empty"#)
        #expect(try reason(#"{"id": "\#(id)", "title": "T", "version": "1", "schemaFingerprint": "other"}"#) == nil)
        // A pack of another schema.
        #expect(throws: PackError.schemaMismatch(path: pack.url.path, pack: "other", expected: ChatModelsSchema.fingerprint)) {
            try Pack.open(at: pack.url).openStore(schema: ChatModelsSchema.self)
        }
        try FileManager.default.removeItem(at: pack.storeURL)
        #expect(throws: PackError.missingStoreFile(path: pack.url.path)) { try Pack.open(at: pack.url) }
        try FileManager.default.removeItem(at: manifest)
        #expect(throws: PackError.self) { try Pack.open(at: pack.url) }
    }

    @Test func installUpdateDowngradeAndRemove() throws {
        let library = try PackLibrary(directory: folder.file("packs"), schema: ChatModelsSchema.self)
        let id = UUID()
        let v1 = try makePack("v1", id: id, version: "1.0", users: ["a"])
        let v2 = try makePack("v2", id: id, version: "2.0", users: ["a", "b"])
        let other = try makePack("other", users: ["z"])
        #expect(try library.install(from: v1.url) == .installed)
        #expect(try library.install(from: other.url) == .installed)
        #expect(try library.install(from: v2.url) == .updated(from: "1.0"))
        #expect(try library.installed.map(\.manifest.version) == ["2.0", "1.0"])
        // A lower version is refused unless forced, and changes nothing.
        let listing = try FileManager.default.contentsOfDirectory(atPath: library.directory.path).sorted()
        #expect(throws: PackError.newerVersionInstalled(id: id, installed: "2.0", offered: "1.0")) { try library.install(from: v1.url) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.directory.path).sorted() == listing)
        #expect(try library.install(from: v1.url, force: true) == .updated(from: "2.0"))
        // Installed copies are read like the originals; the replaced folder is gone.
        let installed = try library.installed.first { $0.manifest.id == id }!
        #expect(installed.url.deletingLastPathComponent().path.hasPrefix(library.directory.path))
        let store = try installed.openStore(schema: ChatModelsSchema.self)
        #expect(store.context.ids(of: User.self) == ["a"])
        store.close()
        // #27: a pack's folder holds exactly what was installed, after its store was opened
        // and closed, and so does one a user store read through.
        let user = try Store(.file(folder.file("user.sqlite")), schema: ChatModelsSchema.self, packs: library.directory)
        #expect(Set(user.context.ids(of: User.self)) == ["a", "z"])
        user.close()
        for pack in try library.installed {
            #expect(try FileManager.default.contentsOfDirectory(atPath: pack.url.path).sorted() == [Pack.manifestFileName, Pack.storeFileName])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: v1.url.path).sorted() == [Pack.manifestFileName, Pack.storeFileName])
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.directory.path).filter { $0.hasSuffix(".pack") }.count == 2)
        try library.remove(id: id)
        #expect(try library.installed.map(\.manifest.title) == ["other"])
        #expect(throws: PackError.notInstalled(id: id)) { try library.remove(id: id) }
        // A second library on the same directory sees the same packs.
        #expect(try PackLibrary(directory: library.directory, schema: ChatModelsSchema.self).installed.map(\.manifest.id) == [other.manifest.id])
    }

    @Test func idCollisionsAreRefusedWithTheirIds() throws {
        let library = try PackLibrary(directory: folder.file("packs"), schema: ChatModelsSchema.self)
        let first = try makePack("first", users: ["a", "b"])
        try library.install(from: first.url)
        let clashing = try makePack("clashing", users: ["b", "c"])
        #expect(throws: PackError.idCollision(pack: clashing.manifest.id, with: "pack \(first.manifest.id) (first)", ids: ["User": ["b"]])) {
            try library.install(from: clashing.url)
        }
        let user = try Store(.memory, schema: ChatModelsSchema.self)
        try user.write { try User(id: "c", name: "Mine").save(to: &$0) }
        let third = try makePack("third", users: ["c"])
        #expect(throws: PackError.idCollision(pack: third.manifest.id, with: "the user store", ids: ["User": ["c"]])) {
            try library.install(from: third.url, userStore: user)
        }
        #expect(try library.installed.map(\.manifest.title) == ["first"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: library.directory.path).filter { $0.hasSuffix(".pack") }.count == 1)
    }

    @Test func deletionsThatFailedAreRetriedOnOpen() throws {
        let directory = folder.file("packs")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("stale.pack"), withIntermediateDirectories: true)
        try JSONEncoder().encode(["stale.pack", "gone.pack"]).write(to: directory.appendingPathComponent("pending-deletions.json"))
        _ = try PackLibrary(directory: directory, schema: ChatModelsSchema.self)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("stale.pack").path))
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("pending-deletions.json").path))
    }

    @Test func versionsCompareNumberByNumber() {
        // `PackVersion("1.2")` with a literal is the literal; parsing text at run time is failable.
        #expect(("1.2" as PackVersion) == "1.2.0")
        #expect(("1.10" as PackVersion) > "1.9")
        #expect(("2" as PackVersion) > "1.99.99")
        for bad in ["", "1.", ".1", "1.-2", "v1", "1.2a", "１"] { #expect(PackVersion(bad) == nil, "\(bad)") }
        let text = "3.0.1"
        #expect(PackVersion(text)?.components == [3, 0, 1])
        // #27: what the author wrote is kept, in descriptions and in the manifest's JSON.
        #expect(("1.0.0" as PackVersion).description == "1.0.0")
        let encoded = try? JSONEncoder().encode(["version": "1.0" as PackVersion])
        #expect(encoded.map { String(decoding: $0, as: UTF8.self) } == #"{"version":"1.0"}"#)
        let decoded = encoded.flatMap { try? JSONDecoder().decode([String: PackVersion].self, from: $0) }
        #expect(decoded?["version"]?.description == "1.0" && decoded?["version"] == "1")
        #expect(Set(["1.0", "1"] as [PackVersion]).count == 1)
    }

    @Test func exportKeepsTheSelectedEntitiesAndTheLinksAmongThem() throws {
        var source = Context()
        try Chat(id: "c1", title: "Team", users: .relation([User(id: "a", name: "Ann"), User(id: "b", name: "Bob"), User(id: "z", name: "Zed")]),
                 messages: .relation([Message(id: "m1", text: "hi", author: .id("a")), Message(id: "m2", text: "yo", author: .id("z"))]))
            .save(to: &source)
        let selection = PackSelection()
            .including(Chat.self, ids: ["c1"])
            .including(User.self, ids: ["a", "b"])
            .including(Message.self, ids: ["m1"])
        let pack = try Pack.export(at: folder.file("team.pack"), manifest: PackManifest(title: "Team", version: "1"),
                                   schema: ChatModelsSchema.self, from: source, selecting: selection)
        let store = try pack.openStore(schema: ChatModelsSchema.self)
        defer { store.close() }
        let chat = try #require(Chat.query("c1", in: store.context).with(\.$users).with(\.$messages) { $0.with(\.$author) }.resolve())
        #expect(chat.title == "Team")
        #expect(chat.users?.map(\.id) == ["a", "b"])
        #expect(chat.messages?.map { "\($0.id) by \($0.author?.name ?? "-")" } == ["m1 by Ann"])
        #expect(User.query("a", in: store.context).with(\.$chats).resolve()?.chats?.map(\.id) == ["c1"])
        #expect(store.context.ids(of: User.self).sorted() == ["a", "b"])

        // A message without its required author cannot be exported, and no folder is left.
        let broken = PackSelection().including(Chat.self, ids: ["c1"]).including(Message.self, ids: ["m1"])
        #expect(throws: (any Error).self) {
            try Pack.export(at: folder.file("broken.pack"), manifest: PackManifest(title: "Broken", version: "1"),
                            schema: ChatModelsSchema.self, from: source, selecting: broken)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("broken.pack").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasSuffix(".partial") }.isEmpty)
    }
}
