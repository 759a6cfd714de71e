import ChatModels
import Foundation
import SchemaRuntime
import SchemaStore

/// Two packs of chat content for the unified-view tests, and the same content built in a
/// plain context (the reference).
struct PackFixtures {
    static let starterID = UUID(uuidString: "00000000-0000-0000-0000-00000000000A")!
    static let extraID = UUID(uuidString: "00000000-0000-0000-0000-00000000000B")!

    /// Starter: users u0-u2, chat c0 (u0, u1) with messages m0-m4.
    static func fillStarter(_ context: inout Context) throws {
        for index in 0..<3 { try User(id: "u\(index)", name: "starter \(index)", age: 20 + index).save(to: &context) }
        try Chat(id: "c0", title: "Welcome", users: .ids(["u0", "u1"])).save(to: &context)
        for index in 0..<5 {
            try Message(id: "m\(index)", text: "hello starter \(index)", timestamp: index, author: .id("u\(index % 2)"), chat: .id("c0"))
                .save(to: &context)
        }
    }

    /// Extra: user u3, chat c1 with messages m5-m9, some by the starter pack's u0 (a link
    /// across packs).
    static func fillExtra(_ context: inout Context) throws {
        try User(id: "u3", name: "extra 3", age: 40).save(to: &context)
        try Chat(id: "c1", title: "Extras", users: .ids(["u3", "u0"])).save(to: &context)
        for index in 5..<10 {
            try Message(id: "m\(index)", text: "bye extra \(index)", timestamp: index, author: .id(index % 2 == 0 ? "u3" : "u0"), chat: .id("c1"))
                .save(to: &context)
        }
    }

    /// Creates both packs in `folder` and returns them.
    static func makePacks(in folder: URL, starterVersion: PackVersion = "1.0") throws -> (starter: Pack, extra: Pack) {
        let starter = try Pack.create(at: folder.appendingPathComponent("starter-\(UUID().uuidString.prefix(4)).pack"),
                                      manifest: PackManifest(id: starterID, title: "Starter", version: starterVersion),
                                      schema: ChatModelsSchema.self, fillStarter)
        let extra = try Pack.create(at: folder.appendingPathComponent("extra-\(UUID().uuidString.prefix(4)).pack"),
                                    manifest: PackManifest(id: extraID, title: "Extra", version: "1.0"),
                                    schema: ChatModelsSchema.self, fillExtra)
        return (starter, extra)
    }

    /// Both packs' content in one plain context.
    static func reference() throws -> Context {
        var context = Context()
        try fillStarter(&context)
        try fillExtra(&context)
        return context
    }

    /// The bytes of every file of a pack folder, to check a pack is never written.
    static func checksum(_ pack: Pack) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: pack.url.path) {
            files[name] = try Data(contentsOf: pack.url.appendingPathComponent(name))
        }
        return files
    }

    /// Both packs, made and installed into a library in a temporary folder.
    struct Installed {
        let folder: TemporaryFolder
        let directory: URL
        let library: PackLibrary

        init() throws {
            folder = try TemporaryFolder()
            let packs = try PackFixtures.makePacks(in: folder.url)
            directory = folder.file("installed")
            library = try PackLibrary(directory: directory, schema: ChatModelsSchema.self)
            try library.install(from: packs.starter.url)
            try library.install(from: packs.extra.url)
        }

        func open(_ name: String, _ residency: Store.Residency, readOnly: Bool = false) throws -> Store {
            try Store(.file(folder.file(name)), schema: ChatModelsSchema.self, packs: directory,
                      options: .init(readOnly: readOnly, residency: residency))
        }
    }
}
