/// One stored row, in the order of ``PersistentEntity/storedFields``, which a generated
/// ``PersistentEntity/init(storedRow:)`` reads back into an entity.
public struct StoredRow: Sendable {
    /// The column values, `id` first.
    public var values: [StoredValue]

    public init(_ values: [StoredValue]) { self.values = values }

    /// The value of column `index` as a typed field.
    @inlinable
    public func value<Value: StorableValue>(at index: Int, as type: Value.Type = Value.self) throws -> Value {
        try Value(storedValue: values[index])
    }

    /// The value of column `index` decoded from JSON text.
    public func json<Value: Decodable>(at index: Int, as type: Value.Type = Value.self) throws -> Value {
        try StoredJSON.decode(Value.self, from: values[index])
    }

    /// The value of column `index` decoded from JSON text, nil for NULL.
    public func nullableJSON<Value: Decodable>(at index: Int, as type: Value.Type = Value.self) throws -> Value? {
        values[index] == .null ? nil : try StoredJSON.decode(Value.self, from: values[index])
    }
}
