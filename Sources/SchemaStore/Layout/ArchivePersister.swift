import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// The soft-deleted archives of one entity type (`Deleted<Entity>` rows, see
/// ``SchemaRuntime/Deleted``): kept in the store's archive table as JSON, one record per
/// archived id, so `asDeleted(in:)` and `restore(in:)` work on a store as on a context.
protocol AnyArchivePersister: Sendable {
    /// The archived entity's name (the archive table keys records by it).
    var entityName: String { get }
    /// The `Deleted<Entity>` table of a context.
    var table: ObjectIdentifier { get }
    /// The archived id of `key`, as stored.
    func idValue(_ key: Int32, in context: Context) -> StoredValue
    /// The archive under `key` as JSON, or nil when there is none (it was restored or removed).
    func json(_ key: Int32, in context: Context) throws -> Data?
    /// Reads an archive back into `context`.
    func load(_ json: Data, into context: inout Context) throws
    /// The key of the archived id `value` in `context`, interned if new.
    func loadKey(_ value: StoredValue, into context: inout Context) throws -> Int32
    /// Stores the archive of `id` another store committed, or removes it when `json` is nil.
    /// Inside a transaction, journaled.
    func refresh(_ json: Data?, id: StoredValue, in context: inout Context) throws
}

struct ArchivePersister<Entity: PersistentEntity & Codable>: AnyArchivePersister {
    var entityName: String { Entity.entityName }
    var table: ObjectIdentifier { ObjectIdentifier(Deleted<Entity>.self) }

    func idValue(_ key: Int32, in context: Context) -> StoredValue {
        context.storedID(Deleted<Entity>.self, key: key).storedValue
    }

    func json(_ key: Int32, in context: Context) throws -> Data? {
        guard let archive = context.storedRow(Deleted<Entity>.self, key: key) else { return nil }
        let encoder = JSONEncoder()
        // Every relation state round-trips, so `restore` relinks what the archive lists.
        encoder.relationEncodingStrategy = .explicitKeyedContainer
        encoder.outputFormatting = .sortedKeys
        return try encoder.encode(archive)
    }

    func load(_ json: Data, into context: inout Context) throws {
        try context.loadRow(try JSONDecoder().decode(Deleted<Entity>.self, from: json), savedAt: nil)
    }

    func loadKey(_ value: StoredValue, into context: inout Context) throws -> Int32 {
        context.loadKey(try Entity.ID(storedValue: value), Deleted<Entity>.self)
    }

    func refresh(_ json: Data?, id: StoredValue, in context: inout Context) throws {
        guard let json else {
            if let key = context.storedKey(of: try Entity.ID(storedValue: id), Deleted<Entity>.self) { context.removeRow(key) }
            return
        }
        try context.refreshRow(try JSONDecoder().decode(Deleted<Entity>.self, from: json), savedAt: nil)
    }
}
