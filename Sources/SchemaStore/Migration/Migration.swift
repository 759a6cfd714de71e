@_spi(SchemaStore) import SchemaRuntime

/// A change a store cannot infer, written in code: computes one field of an entity from
/// each row stored with the older schema. Registered when opening the store; it runs only
/// when the migration plan needs it (a type change, a new required field with no default,
/// an optional field made required with no default).
///
/// ```swift
/// let store = try Store(.file(url), schema: AppSchema.self, migrations: [
///     // `score` was a String; it is an Int now.
///     .field("score", of: Message.self) { row in Int(try row.value("score", as: String.self)) ?? 0 },
/// ])
/// ```
public struct Migration: Sendable {
    /// The entity and field, by their names in the code's schema.
    public let entity: String
    public let field: String
    let type: StoredType
    let isNullable: Bool
    let isJSON: Bool
    let transform: @Sendable (MigrationRow) throws -> StoredValue

    /// Computes a field stored in a typed column (numbers, strings, dates, enums, optionals of them).
    public static func field<Entity: PersistentEntity, Value: StorableValue>(
        _ field: String, of entity: Entity.Type, _ transform: @escaping @Sendable (MigrationRow) throws -> Value
    ) -> Migration {
        Migration(entity: Entity.entityName, field: field, type: Value.storedType, isNullable: Value.isNullable, isJSON: false) {
            try transform($0).storedValue
        }
    }

    /// Computes a field stored as JSON (arrays, dictionaries, structs, external types).
    public static func jsonField<Entity: PersistentEntity, Value: Codable & Sendable>(
        _ field: String, of entity: Entity.Type, _ transform: @escaping @Sendable (MigrationRow) throws -> Value
    ) -> Migration {
        Migration(entity: Entity.entityName, field: field, type: .text, isNullable: false, isJSON: true) {
            try StoredJSON.encode(transform($0))
        }
    }

    var path: MigrationPlan.FieldPath { .init(entity, field) }

    /// Why this migration cannot compute `shape`'s field, or nil if it can.
    func mismatch(in shape: SchemaShape) -> String? {
        guard let entityShape = shape.entity(entity) else { return "the schema has no entity \(entity)" }
        guard let fieldShape = entityShape.field(field) else {
            return "\(entity) has no field \(field) (fields: \(entityShape.fields.map(\.name).joined(separator: ", ")))"
        }
        if fieldShape.isJSON != isJSON || fieldShape.column != type || (isNullable && !fieldShape.isNullable) {
            let registered = isJSON ? "a JSON value" : "\(isNullable ? "an optional " : "a ")\(type.rawValue) value"
            return "\(entity).\(field) is \(fieldShape.type), but its migration returns \(registered)"
                + (fieldShape.isJSON ? "; use Migration.jsonField" : "")
        }
        return nil
    }
}

/// One row as the older schema stored it, given to a ``Migration``: its values by the field
/// names of that schema.
public struct MigrationRow: Sendable {
    /// The entity's name in the stored schema.
    public let entity: String
    let values: [String: StoredValue]

    /// The stored id.
    public var id: StoredValue { values[TableLayout.idField] ?? .null }

    /// The stored value of `field` (NULL for nil), or nil if the stored schema has no such field.
    public subscript(field: String) -> StoredValue? { values[field] }

    /// The stored value of `field` read as `Value`.
    public func value<Value: StorableValue>(_ field: String, as type: Value.Type = Value.self) throws -> Value {
        try Value(storedValue: stored(field))
    }

    /// The JSON-stored value of `field` read as `Value`.
    public func json<Value: Decodable>(_ field: String, as type: Value.Type = Value.self) throws -> Value {
        try StoredJSON.decode(Value.self, from: stored(field))
    }

    private func stored(_ field: String) throws -> StoredValue {
        guard let value = values[field] else {
            throw StoreError.migrationFailed(path: "", reason: "the stored \(entity) has no field '\(field)' (it has \(values.keys.sorted().joined(separator: ", ")))")
        }
        return value
    }
}
