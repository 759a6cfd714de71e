import Foundation
import SchemaRuntime

/// A read-only content pack: a folder `<name>.pack/` holding `manifest.json` (``PackManifest``)
/// and a store file written by this project (`store.sqlite`). Packs carry bundled or
/// downloaded content (component libraries, templates, reference data); a ``PackLibrary``
/// installs them (docs/Packs.md).
public struct Pack: Sendable, Hashable {
    public static let storeFileName = "store.sqlite"
    public static let manifestFileName = "manifest.json"

    /// The pack's folder.
    public let url: URL
    public let manifest: PackManifest

    public var storeURL: URL { url.appendingPathComponent(Self.storeFileName) }

    /// Writes a new pack at `url` (a folder that must not exist yet): a store for `schema`
    /// filled by `fill`, and the manifest, with the schema's fingerprint. The folder appears
    /// complete or not at all: it is built beside `url` and moved into place.
    @discardableResult
    public static func create(at url: URL, manifest: PackManifest, schema: any PersistentSchema.Type,
                              _ fill: (inout Context) throws -> Void) throws -> Pack {
        let files = FileManager.default
        guard !files.fileExists(atPath: url.path) else { throw PackError.alreadyExists(path: url.path) }
        let staging = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).partial")
        try files.createDirectory(at: staging, withIntermediateDirectories: true)
        var manifest = manifest
        manifest.schemaFingerprint = schema.fingerprint
        do {
            let store = try Store(.file(staging.appendingPathComponent(storeFileName)), schema: schema)
            try store.write(fill)
            store.close()
            try seal(staging.appendingPathComponent(storeFileName))
            try manifest.write(to: staging.appendingPathComponent(manifestFileName))
            try files.moveItem(at: staging, to: url)
        } catch {
            try? files.removeItem(at: staging)
            throw error
        }
        return Pack(url: url, manifest: manifest)
    }

    /// The pack in the folder at `url`, its manifest checked and its store file present.
    public static func open(at url: URL) throws -> Pack {
        let manifest = try PackManifest.read(url.appendingPathComponent(manifestFileName))
        let pack = Pack(url: url, manifest: manifest)
        guard FileManager.default.fileExists(atPath: pack.storeURL.path) else { throw PackError.missingStoreFile(path: url.path) }
        return pack
    }

    /// Opens the pack's store read-only (its file is never written). Throws
    /// ``PackError/schemaMismatch(path:pack:expected:)`` for a pack written with another schema.
    public func openStore(schema: any PersistentSchema.Type) throws -> Store {
        guard manifest.schemaFingerprint == schema.fingerprint else {
            throw PackError.schemaMismatch(path: url.path, pack: manifest.schemaFingerprint, expected: schema.fingerprint)
        }
        return try Store(.file(storeURL), schema: schema, options: .init(readOnly: true))
    }

    /// Switches a pack's store file out of write-ahead logging, folding the log into the file:
    /// a pack is only read, and a file in rollback-journal mode leaves no `-wal`/`-shm`
    /// files beside it when readers open and close it, so the pack's folder holds exactly
    /// its manifest and its store file.
    static func seal(_ storeURL: URL) throws {
        do {
            let database = try SQLiteDatabase(path: storeURL.path, create: false)
            defer { database.close() }
            try database.execute("PRAGMA journal_mode = DELETE")
        } catch let error as SQLiteError {
            throw StoreError.database(path: storeURL.path, reason: "cannot seal the pack's store: \(error)")
        }
    }

    /// The files that make up the pack's store: the database and, when present, its
    /// write-ahead log and shared memory.
    var storeFiles: [String] {
        [Self.storeFileName, Self.storeFileName + "-wal", Self.storeFileName + "-shm"]
            .filter { FileManager.default.fileExists(atPath: url.appendingPathComponent($0).path) }
    }
}
