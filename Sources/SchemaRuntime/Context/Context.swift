import Foundation

/// A normalized, in-memory store of entities and the links between them.
///
/// `Context` is a value: copying it is O(1) and the copy is an independent snapshot.
/// Copy, mutate, discard is a rollback; keep the copy and it is a commit. Internally each
/// entity type's storage is a copy-on-write box, duplicated the first time a shared copy
/// writes to it, so no mutation is ever visible through another copy.
///
/// Saves and deletes run in a transaction: if they throw, the context is left exactly as
/// it was before the call.
public struct Context: Sendable {
    @usableFromInline var tables: [ObjectIdentifier: TableStorage] = [:]
    @usableFromInline var journal: Journal? = nil
    /// How many embedded entities deep the running save is (see ``saveEmbedded(_:options:)``).
    @usableFromInline var embeddingDepth = 0
    /// The packs whose entities this context holds, numbered from 1 in ``TableStorage/origins``.
    @usableFromInline var packSources: [UUID] = []
    /// Where a context of a store reading on demand gets the rows its queries read; nil for a
    /// context holding its graph (``ContextReader``).
    @usableFromInline var reader: (any ContextReader)?
    /// Whether tables keep the schema's indexes (false for a context holding one query's rows).
    @usableFromInline var keepsIndexes = true
    /// Whether tables keep only unique indexes (a write reading on demand: they check
    /// collisions; its queries scan what they read).
    @usableFromInline var keepsOnlyUniqueIndexes = false
    /// Whether the context is made for one write or one query of a store reading on demand,
    /// and holds the few rows those touch: its tables start small (``EntityTable/init(indexed:uniqueOnly:fewRows:)``).
    @usableFromInline var holdsFewRows = false
    /// For a context holding one query's rows: full-text statistics of the whole tables they
    /// come from, by entity type, so ranking scores as over the whole table.
    var fullTextStatistics: [ObjectIdentifier: FullTextStatistics] = [:]
    /// For a write on a store reading on demand: where the stored state the write touches is
    /// read from, and what was read (``ContextFaulter``). Nil for every other context.
    @usableFromInline var faulter: (any ContextFaulter)?
    @usableFromInline var faults = FaultState()

    /// An empty context.
    public init() {}

    // MARK: Table access

    /// The storage of `table` for reading, if that entity type has been seen.
    @usableFromInline
    func storageIfPresent(_ table: ObjectIdentifier) -> TableStorage? { tables[table] }

    /// The storage of an existing table, made unique so it can be written.
    ///
    /// Callers must not hold another reference to the box (from `storageIfPresent` or
    /// `tableIfPresent`) at this point: it would defeat the uniqueness check and copy the table.
    /// One hash lookup: the box is reached by its index in `tables` (every write calls this,
    /// several times per entity; by key it hashed three times).
    @usableFromInline
    mutating func storage(_ table: ObjectIdentifier) -> TableStorage {
        let index = tables.index(forKey: table)!
        if !isKnownUniquelyReferenced(&tables.values[index]) {
            tables.values[index] = tables.values[index].copy()
        }
        return tables.values[index]
    }

    /// The typed table of `Entity` for reading.
    @inlinable
    func tableIfPresent<Entity: EntityModelProtocol>(_ type: Entity.Type) -> EntityTable<Entity>? {
        guard let storage = tables[ObjectIdentifier(type)] else { return nil }
        return unsafeDowncast(storage, to: EntityTable<Entity>.self)
    }

    /// The typed table of `Entity`, created if needed and made unique so it can be written.
    @inlinable
    mutating func table<Entity: EntityModelProtocol>(_ type: Entity.Type) -> EntityTable<Entity> {
        let id = ObjectIdentifier(type)
        if tables[id] == nil {
            let table = EmptyTables.table(type, indexed: keepsIndexes, uniqueOnly: keepsOnlyUniqueIndexes, fewRows: holdsFewRows)
            tables[id] = table
            return table
        }
        return unsafeDowncast(storage(id), to: EntityTable<Entity>.self)
    }

    /// The key of `id`, interning it if it is new to the context. Journaled, so a rolled-back
    /// transaction leaves no trace of the ids it saw.
    @inlinable
    mutating func intern<Entity: EntityModelProtocol>(_ id: Entity.ID, _ type: Entity.Type) -> Int32 {
        // Reading first keeps a known id from forcing a unique copy of a shared table.
        if let key = tableIfPresent(type)?.keyByID[id] { return key }
        let key = table(type).intern(id).key
        // A faulting context never un-interns (faults load keys rollback must keep).
        if faulter == nil { record(.interned(table: ObjectIdentifier(type))) }
        return key
    }

    /// The key of `id`, if the context has seen it.
    @inlinable
    func key<Entity: EntityModelProtocol>(of id: Entity.ID, _ type: Entity.Type) -> Int32? {
        tableIfPresent(type)?.keyByID[id]
    }

    /// The stored entity under `key`, normalized (relations are `.none`).
    @inlinable
    func row<Entity: EntityModelProtocol>(_ type: Entity.Type, _ key: Int32) -> Entity? {
        guard let table = tableIfPresent(type), Int(key) < table.rows.count else { return nil }
        return table.rows[Int(key)]
    }

    /// The id interned as `key`.
    @inlinable
    func id<Entity: EntityModelProtocol>(_ type: Entity.Type, _ key: Int32) -> Entity.ID {
        tableIfPresent(type)!.ids[Int(key)]
    }

    // MARK: Public reading

    /// The number of stored entities of `type`. O(1).
    public func count<Entity: EntityModelProtocol>(of type: Entity.Type) -> Int {
        if let reader { return reader.count(of: type, in: self) }
        return tableIfPresent(type)?.rowCount ?? 0
    }

    /// The ids of every stored entity of `type`, in context order: the order in which each
    /// id first appeared in this context (saved or linked to). O(n).
    public func ids<Entity: EntityModelProtocol>(of type: Entity.Type) -> [Entity.ID] {
        if let reader {
            let (list, context) = reader.materialize(QueryList<Entity>(context: nil, source: .all), in: self)
            return list.execute(in: context).keys.map { context.id(type, $0) }
        }
        guard let table = tableIfPresent(type) else { return [] }
        var result: [Entity.ID] = []
        result.reserveCapacity(table.rowCount)
        for key in table.present.indices where table.present[key] { result.append(table.ids[key]) }
        return result
    }

    /// The stored entity with `id`, with its relations unresolved (`.none`). O(1).
    public func find<Entity: EntityModelProtocol>(_ type: Entity.Type, id: Entity.ID) -> Entity? {
        if let context = holding(id, type) { return context.find(type, id: id) }
        guard let key = key(of: id, type) else { return nil }
        return row(type, key)
    }

    /// Keys of every stored entity of `type`, in context order.
    func liveKeys<Entity: EntityModelProtocol>(_ type: Entity.Type) -> [Int32] {
        guard let table = tableIfPresent(type) else { return [] }
        var result: [Int32] = []
        result.reserveCapacity(table.rowCount)
        for key in table.present.indices where table.present[key] { result.append(Int32(key)) }
        return result
    }
}
