/// One group of a ``GroupedQuery`` with its aggregate: `(key: chatID, value: 42, count: 42)`.
public struct AggregateGroup<Key, Value> {
    /// The group's key: a field's value, a tuple of field values, or a related entity's id.
    public let key: Key
    /// The aggregate over the group's entities (`count`, `sum`, `average`, `min`, `max`).
    public let value: Value
    /// How many entities the group holds.
    public let count: Int

    public init(key: Key, value: Value, count: Int) {
        self.key = key
        self.value = value
        self.count = count
    }
}

extension AggregateGroup: Sendable where Key: Sendable, Value: Sendable {}
extension AggregateGroup: Equatable where Key: Equatable, Value: Equatable {}
