/// An entity that a store (SchemaStore) can keep in a table: `schemagen` generates the
/// conformance, the column of every field and the initializer reading a row back.
///
/// Relations are not columns: a store keeps links in link tables it derives from
/// ``EntityModelProtocol/relations``.
public protocol PersistentEntity: EntityModelProtocol where ID: StorableValue {
    /// Every field's column, `id` first, in schema order.
    static var storedFields: [StoredField<Self>] { get }

    /// Reads an entity back from its row (relations `.none`).
    init(storedRow row: StoredRow) throws

    /// The keys of stored ids in `context`, each interned if new: what a store reading on
    /// demand does for every id it reads. The default, inlinable, is specialized for each
    /// conforming type where its conformance is compiled (the store itself sees entity types
    /// only as `any PersistentEntity.Type`).
    static func loadKeys(_ values: [StoredValue], into context: inout Context) throws -> [Int32]

    /// Reads stored rows (each with its save time last when the type tracks it) into
    /// `context`; returns their keys. Specialized per conforming type, as ``loadKeys(_:into:)``.
    static func loadRows(_ rows: [[StoredValue]], into context: inout Context) throws -> [Int32]

    // What a store reads of every row and link it writes, specialized per conforming type
    // as ``loadKeys(_:into:)`` is: the store's own code, generic over entity types it sees
    // only at run time, looked up several types' metadata on every such call.

    /// The id interned as `key` in `context`, as stored.
    static func storedIDValue(_ key: Int32, in context: Context) -> StoredValue

    /// Whether `context` holds a row under `key`.
    static func hasStoredRow(_ key: Int32, in context: Context) -> Bool

    /// The row under `key` in `context` as stored: the value of each of `fields` (this
    /// type's ``storedFields``), then the save time when the type tracks it; nil when
    /// `context` holds no row there.
    static func storedRowValues(_ key: Int32, in context: Context, fields: [StoredField<Self>]) throws -> [StoredValue]?

    /// The text each of `indexes` (full-text indexes of this type) holds for the row under
    /// `key` in `context`; nil when `context` holds no row there.
    static func indexedTexts(_ key: Int32, in context: Context, of indexes: [IndexDescriptor<Self>]) -> [String]?
}

extension PersistentEntity {
    @inlinable
    public static func loadKeys(_ values: [StoredValue], into context: inout Context) throws -> [Int32] {
        context.loadKeys(try values.map { try ID(storedValue: $0) }, Self.self)
    }

    @inlinable
    public static func loadRows(_ rows: [[StoredValue]], into context: inout Context) throws -> [Int32] {
        var entities: [Self] = []
        var times: [Double?] = []
        entities.reserveCapacity(rows.count)
        times.reserveCapacity(rows.count)
        for values in rows {
            entities.append(try Self(storedRow: StoredRow(values)))
            var savedAt: Double?
            if tracksUpdatedAt, let stored = values.last, stored != .null { savedAt = try Double(storedValue: stored) }
            times.append(savedAt)
        }
        return try context.loadRows(entities, savedAt: times)
    }

    @inlinable
    public static func storedIDValue(_ key: Int32, in context: Context) -> StoredValue {
        context.id(Self.self, key).storedValue
    }

    @inlinable
    public static func hasStoredRow(_ key: Int32, in context: Context) -> Bool {
        context.row(Self.self, key) != nil
    }

    @inlinable
    public static func storedRowValues(_ key: Int32, in context: Context, fields: [StoredField<Self>]) throws -> [StoredValue]? {
        guard let entity = context.row(Self.self, key) else { return nil }
        var values: [StoredValue] = []
        values.reserveCapacity(fields.count + 1)
        for field in fields { values.append(try field.value(entity)) }
        if tracksUpdatedAt { values.append(context.tableIfPresent(Self.self)?.savedAt(key).map(StoredValue.real) ?? .null) }
        return values
    }

    @inlinable
    public static func indexedTexts(_ key: Int32, in context: Context, of indexes: [IndexDescriptor<Self>]) -> [String]? {
        guard let entity = context.row(Self.self, key) else { return nil }
        return indexes.map { $0.text(of: entity) }
    }
}

/// The entities a store keeps: generated once per target of schema files, as
/// `<Target>Schema` (for example `ChatModelsSchema`).
public protocol PersistentSchema {
    /// A fingerprint of the stored layout: entities, fields with their column types,
    /// relations. Indexes, merge rules and documentation do not change it.
    static var fingerprint: String { get }

    /// Every entity of the schema, in schema order.
    static var entities: [any PersistentEntity.Type] { get }

    /// What a store keeps of the schema, and what its parts were called before
    /// (`renamedFrom:`): recorded in store files and compared on open to migrate them.
    static var shape: SchemaShape { get }
}
