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
