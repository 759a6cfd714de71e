import Foundation
import SchemaRuntime

/// The packs installed in a directory, for one schema: install, update, remove, list.
///
/// Layout: each installed pack is a folder of its own (`<id>-<version>-<nonce>.pack`), and
/// `packs.json` lists the installed ones. Installing copies the pack into a new folder, then
/// replaces `packs.json` atomically (write and rename), then deletes the folder it replaced:
/// a reader sees the old set of packs or the new one, never a mix. A folder that cannot be
/// deleted (a file in use) is listed in `pending-deletions.json` and deleted when a library
/// is next opened on the directory.
///
/// Id collisions: a pack may not share an entity id (within one entity type) with another
/// installed pack or with the user store given to ``install(from:force:userStore:)``; the
/// install throws ``PackError/idCollision(pack:with:ids:)`` listing them. (Once installed, a
/// user-store entity with a pack entity's id is an override of it, by design.)
public final class PackLibrary: @unchecked Sendable {
    /// What installing did.
    public enum InstallOutcome: Sendable, Equatable {
        /// The pack was not installed before.
        case installed
        /// An installed pack with the same id (and this version) was replaced.
        case updated(from: PackVersion)
    }

    public let directory: URL
    public let schema: any PersistentSchema.Type
    private let lock = NSLock()

    private static let indexFileName = "packs.json"
    private static let pendingFileName = "pending-deletions.json"

    private struct Entry: Codable, Hashable {
        var id: UUID
        var folder: String
        /// Whether the installed file has the SQL indexes and full-text postings stores
        /// reading on demand query (nil in a directory an older version wrote).
        var prepared: Bool?
    }

    /// Opens (creating it if needed) the packs directory at `directory`, and deletes the
    /// folders earlier removals could not.
    public init(directory: URL, schema: any PersistentSchema.Type) throws {
        self.directory = directory
        self.schema = schema
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try lock.withLock {
            try retryPendingDeletions()
            try migrateInstalled()
        }
    }

    /// The installed packs, in installation order.
    public var installed: [Pack] {
        get throws {
            try lock.withLock { try readIndex().map { try Pack.open(at: directory.appendingPathComponent($0.folder)) } }
        }
    }

    /// Installs the pack folder at `url`, or updates the installed pack with its id: a
    /// lower or equal installed version is replaced; a higher one is kept unless `force`.
    /// Checks the manifest, the store file, and id collisions with the other installed packs
    /// and with `userStore`. A pack written with an older schema is migrated as it is
    /// installed (the installed copy is; the pack at `url` is never written), as a store
    /// opening it would be (docs/Persistence.md, "Changing your schema"); one that cannot be
    /// migrated is refused with the store's error.
    @discardableResult
    public func install(from url: URL, force: Bool = false, userStore: Store? = nil) throws -> InstallOutcome {
        try install(from: url, force: force, userStore: userStore, validate: nil)
    }

    /// ``install(from:force:userStore:)``; `validate` runs last, with the packs as they
    /// would be installed (the new one staged), and can refuse the install by throwing.
    func install(from url: URL, force: Bool, userStore: Store?, validate: (([Pack]) throws -> Void)?) throws -> InstallOutcome {
        let source = try Pack.open(at: url)
        let id = source.manifest.id
        return try lock.withLock {
            var index = try readIndex()
            let previous = index.firstIndex { $0.id == id }
            var outcome = InstallOutcome.installed
            if let previous {
                let installed = try Pack.open(at: directory.appendingPathComponent(index[previous].folder))
                if installed.manifest.version > source.manifest.version, !force {
                    throw PackError.newerVersionInstalled(id: id, installed: installed.manifest.version, offered: source.manifest.version)
                }
                outcome = .updated(from: installed.manifest.version)
            }
            let folder = "\(id.uuidString)-\(source.manifest.version)-\(UUID().uuidString.prefix(8)).pack"
            let staging = directory.appendingPathComponent(".\(folder).partial")
            do {
                let pack = try stage(source, at: staging)
                let incoming = try Self.ids(of: pack, schema: schema)
                for entry in index where entry.id != id {
                    let other = try Pack.open(at: directory.appendingPathComponent(entry.folder))
                    try Self.checkCollisions(incoming, pack: id, with: try Self.ids(of: other, schema: schema),
                                             named: "pack \(other.manifest.id) (\(other.manifest.title))")
                }
                if let userStore {
                    try Self.checkCollisions(incoming, pack: id, with: Self.ids(in: userStore.context, schema: schema, source: .user),
                                             named: "the user store")
                }
                if let validate {
                    var packs = try index.map { try Pack.open(at: directory.appendingPathComponent($0.folder)) }
                    if let previous { packs[previous] = pack } else { packs.append(pack) }
                    try validate(packs)
                }
                try FileManager.default.moveItem(at: staging, to: directory.appendingPathComponent(folder))
            } catch {
                try? FileManager.default.removeItem(at: staging)
                throw error
            }
            let replaced = previous.map { index[$0].folder }
            let entry = Entry(id: id, folder: folder, prepared: true)
            if let previous { index[previous] = entry } else { index.append(entry) }
            do {
                try writeIndex(index)
            } catch {
                try? FileManager.default.removeItem(at: directory.appendingPathComponent(folder))
                throw error
            }
            if let replaced { deleteOrQueue(replaced) }
            return outcome
        }
    }

    /// Uninstalls the pack with `id`.
    public func remove(id: UUID) throws {
        try lock.withLock {
            var index = try readIndex()
            guard let position = index.firstIndex(where: { $0.id == id }) else { throw PackError.notInstalled(id: id) }
            let folder = index.remove(at: position).folder
            try writeIndex(index)
            deleteOrQueue(folder)
        }
    }

    // MARK: Files

    private func readIndex() throws -> [Entry] {
        let url = directory.appendingPathComponent(Self.indexFileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        do {
            return try JSONDecoder().decode([Entry].self, from: Data(contentsOf: url))
        } catch {
            throw PackError.badManifest(path: url.path, reason: "the list of installed packs is unreadable (\(error))")
        }
    }

    private func writeIndex(_ index: [Entry]) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        // `.atomic` writes a temporary file and renames it over the index.
        try encoder.encode(index).write(to: directory.appendingPathComponent(Self.indexFileName), options: .atomic)
    }

    /// Copies the manifest and the store files to `staging` (a folder no reader looks at),
    /// migrating the copy when the pack was written with another schema.
    private func stage(_ pack: Pack, at staging: URL) throws -> Pack {
        let files = FileManager.default
        try files.createDirectory(at: staging, withIntermediateDirectories: true)
        for name in [Pack.manifestFileName] + pack.storeFiles {
            try files.copyItem(at: pack.url.appendingPathComponent(name), to: staging.appendingPathComponent(name))
        }
        let copy = Pack(url: staging, manifest: pack.manifest)
        // Opened on demand: migrated if written with another schema, and given the SQL
        // indexes and full-text postings a store reading on demand over it queries.
        let store = try Store(.file(copy.storeURL), schema: schema, options: .init(residency: .onDemand))
        store.close()
        // A pack made by an older version may still be in WAL mode.
        try Pack.seal(copy.storeURL)
        guard pack.manifest.schemaFingerprint != schema.fingerprint else { return copy }
        var manifest = pack.manifest
        manifest.schemaFingerprint = schema.fingerprint
        try manifest.write(to: staging.appendingPathComponent(Pack.manifestFileName))
        return Pack(url: staging, manifest: manifest)
    }

    /// Brings installed packs written with an older schema (the app's schema changed since
    /// they were installed) to this one, as installing them now would. Only the installed
    /// copies are written; a migration that fails leaves its pack as it was and throws.
    private func migrateInstalled() throws {
        var prepared = Set<String>()
        for entry in try readIndex() {
            let pack = try Pack.open(at: directory.appendingPathComponent(entry.folder))
            guard pack.manifest.schemaFingerprint != schema.fingerprint else {
                if entry.prepared != true, prepare(pack) == true { prepared.insert(entry.folder) }
                continue
            }
            let store = try Store(.file(pack.storeURL), schema: schema, options: .init(residency: .onDemand))
            store.close()
            try Pack.seal(pack.storeURL)
            var manifest = pack.manifest
            manifest.schemaFingerprint = schema.fingerprint
            try manifest.write(to: pack.url.appendingPathComponent(Pack.manifestFileName))
            // Opened on demand to migrate: it has its SQL indexes and postings now.
            if entry.prepared != true { prepared.insert(entry.folder) }
        }
        guard !prepared.isEmpty else { return }
        // Read again just before writing: what another process installed meanwhile stays.
        var index = try readIndex()
        for position in index.indices where prepared.contains(index[position].folder) { index[position].prepared = true }
        try writeIndex(index)
    }

    /// Gives a pack an older version installed what stores reading on demand query (SQL
    /// indexes, full-text postings); returns whether it has them. Best effort: a pack another
    /// store reads now is prepared at a later open, and until then its queries scan.
    private func prepare(_ pack: Pack) -> Bool {
        if SQLiteBackend.isPrepared(pack.storeURL.path, for: StoreLayout(schema)) { return true }
        do {
            try Store(.file(pack.storeURL), schema: schema, options: .init(residency: .onDemand)).close()
            try Pack.seal(pack.storeURL)
            return true
        } catch {
            return false
        }
    }

    private func deleteOrQueue(_ folder: String) {
        do {
            try FileManager.default.removeItem(at: directory.appendingPathComponent(folder))
        } catch {
            var pending = (try? readPending()) ?? []
            pending.append(folder)
            try? writePending(pending)
        }
    }

    private func retryPendingDeletions() throws {
        let pending = try readPending()
        guard !pending.isEmpty else { return }
        let remaining = pending.filter { folder in
            let url = directory.appendingPathComponent(folder)
            return FileManager.default.fileExists(atPath: url.path) && (try? FileManager.default.removeItem(at: url)) == nil
        }
        try writePending(remaining)
    }

    private func readPending() throws -> [String] {
        let url = directory.appendingPathComponent(Self.pendingFileName)
        guard FileManager.default.fileExists(atPath: url.path) else { return [] }
        return (try? JSONDecoder().decode([String].self, from: Data(contentsOf: url))) ?? []
    }

    private func writePending(_ folders: [String]) throws {
        let url = directory.appendingPathComponent(Self.pendingFileName)
        if folders.isEmpty {
            try? FileManager.default.removeItem(at: url)
        } else {
            try JSONEncoder().encode(folders).write(to: url, options: .atomic)
        }
    }

    // MARK: Ids

    /// Per entity name, the ids stored in a pack.
    private static func ids(of pack: Pack, schema: any PersistentSchema.Type) throws -> [String: Set<AnyHashable>] {
        let store = try pack.openStore(schema: schema)
        defer { store.close() }
        return ids(in: store.context, schema: schema)
    }

    /// Per entity name, the ids stored in `context` (from `source` only, when given: a store
    /// over packs holds pack entities too, which are not the user's).
    private static func ids(in context: Context, schema: any PersistentSchema.Type, source: EntitySource? = nil) -> [String: Set<AnyHashable>] {
        func ids<Entity: PersistentEntity>(_ type: Entity.Type) -> Set<AnyHashable> {
            Set(context.ids(of: type).filter { source == nil || context.source(of: type, id: $0) == source }.map { AnyHashable($0) })
        }
        var result: [String: Set<AnyHashable>] = [:]
        for type in schema.entities { result[type.entityName] = ids(type) }
        return result
    }

    private static func checkCollisions(_ incoming: [String: Set<AnyHashable>], pack: UUID, with other: [String: Set<AnyHashable>], named name: String) throws {
        var colliding: [String: [String]] = [:]
        for (entity, ids) in incoming {
            let shared = ids.intersection(other[entity] ?? [])
            if !shared.isEmpty { colliding[entity] = shared.map { "\($0.base)" }.sorted() }
        }
        if !colliding.isEmpty { throw PackError.idCollision(pack: pack, with: name, ids: colliding) }
    }
}
