/// A query's result split into groups, with an aggregate per group:
///
/// ```swift
/// // Messages per chat, busiest first, ten chats.
/// let busiest = Message.query(in: context).group(by: \.$chat).sortedByAggregate(descending: true).limit(10).count()
/// // Average age per (status, name).
/// let ages = User.query(in: context).group(by: \.status, \.name).average(\.age)
/// ```
///
/// Groups come in the order of their first entity in the query's result unless sorted by
/// key (``sortedByKey(descending:)``) or by the aggregate (``sortedByAggregate(descending:)``);
/// ties keep that order. Only groups holding at least one entity exist. Grouping reads each
/// entity's stored row once (grouping by a relation reads only its link), and an aggregate of
/// a field reads each member's row once more: O(result) after the query, plus O(g log g) to
/// sort g groups.
public struct GroupedQuery<Entity: EntityModelProtocol, Key> {
    /// One group: its key, the key as index values (hashing and ordering), its members.
    struct Group {
        let key: Key
        let order: IndexKey
        var members: [Int32]
    }

    enum Order { case firstAppearance, key(descending: Bool), aggregate(descending: Bool) }

    let query: QueryList<Entity>
    /// Splits the result's keys into groups, in order of first appearance.
    let partition: (Context, [Int32]) -> [Group]
    var order = Order.firstAppearance
    var limit: Int?

    /// Groups sorted by key (nil first; ascending unless `descending`).
    public func sortedByKey(descending: Bool = false) -> GroupedQuery {
        var copy = self
        copy.order = .key(descending: descending)
        return copy
    }

    /// Groups sorted by their aggregate (nil first; ascending unless `descending`); for
    /// ``entities(in:)``, by the number of entities.
    public func sortedByAggregate(descending: Bool = false) -> GroupedQuery {
        var copy = self
        copy.order = .aggregate(descending: descending)
        return copy
    }

    /// At most `count` groups, after sorting; a negative count reads as 0.
    public func limit(_ count: Int) -> GroupedQuery {
        var copy = self
        copy.limit = Swift.max(count, 0)
        return copy
    }

    // MARK: Aggregates

    /// The number of entities in each group. Reads no rows when grouping by a relation.
    public func count(in context: Context? = nil) -> [AggregateGroup<Key, Int>] {
        run(in: context, less: <) { _, members in members.count }
    }

    /// The sum of a field in each group.
    public func sum<Value: AdditiveArithmetic & Comparable>(_ field: KeyPath<Entity, Value>, in context: Context? = nil) -> [AggregateGroup<Key, Value>] {
        run(in: context, less: <) { context, members in Self.rows(members, context).reduce(.zero) { $0 + $1[keyPath: field] } }
    }

    /// The sum of an optional field in each group, nils skipped.
    public func sum<Value: AdditiveArithmetic & Comparable>(_ field: KeyPath<Entity, Value?>, in context: Context? = nil) -> [AggregateGroup<Key, Value>] {
        run(in: context, less: <) { context, members in Self.rows(members, context).reduce(.zero) { $0 + ($1[keyPath: field] ?? .zero) } }
    }

    /// The mean of an integer field in each group.
    public func average<Value: BinaryInteger>(_ field: KeyPath<Entity, Value>, in context: Context? = nil) -> [AggregateGroup<Key, Double?>] {
        run(in: context, less: { Self.nilFirst($0, $1) }) { context, members in mean(Self.rows(members, context).map { Double($0[keyPath: field]) }) }
    }

    /// The mean of an optional integer field in each group, over the entities where it is
    /// set; nil for a group where none is.
    public func average<Value: BinaryInteger>(_ field: KeyPath<Entity, Value?>, in context: Context? = nil) -> [AggregateGroup<Key, Double?>] {
        run(in: context, less: { Self.nilFirst($0, $1) }) { context, members in
            mean(Self.rows(members, context).compactMap { $0[keyPath: field].map { Double($0) } })
        }
    }

    /// The mean of a floating-point field in each group.
    public func average<Value: BinaryFloatingPoint>(_ field: KeyPath<Entity, Value>, in context: Context? = nil) -> [AggregateGroup<Key, Double?>] {
        run(in: context, less: { Self.nilFirst($0, $1) }) { context, members in mean(Self.rows(members, context).map { Double($0[keyPath: field]) }) }
    }

    /// The mean of an optional floating-point field in each group, over the entities where it is set.
    public func average<Value: BinaryFloatingPoint>(_ field: KeyPath<Entity, Value?>, in context: Context? = nil) -> [AggregateGroup<Key, Double?>] {
        run(in: context, less: { Self.nilFirst($0, $1) }) { context, members in
            mean(Self.rows(members, context).compactMap { $0[keyPath: field].map { Double($0) } })
        }
    }

    /// The smallest value of a field in each group.
    public func min<Value: Comparable>(_ field: KeyPath<Entity, Value>, in context: Context? = nil) -> [AggregateGroup<Key, Value?>] {
        run(in: context, less: { Self.nilFirst($0, $1) }) { context, members in Self.rows(members, context).lazy.map { $0[keyPath: field] }.min() }
    }

    /// The smallest value of an optional field in each group, nils skipped.
    public func min<Value: Comparable>(_ field: KeyPath<Entity, Value?>, in context: Context? = nil) -> [AggregateGroup<Key, Value?>] {
        run(in: context, less: { Self.nilFirst($0, $1) }) { context, members in Self.rows(members, context).lazy.compactMap { $0[keyPath: field] }.min() }
    }

    /// The largest value of a field in each group.
    public func max<Value: Comparable>(_ field: KeyPath<Entity, Value>, in context: Context? = nil) -> [AggregateGroup<Key, Value?>] {
        run(in: context, less: { Self.nilFirst($0, $1) }) { context, members in Self.rows(members, context).lazy.map { $0[keyPath: field] }.max() }
    }

    /// The largest value of an optional field in each group, nils skipped.
    public func max<Value: Comparable>(_ field: KeyPath<Entity, Value?>, in context: Context? = nil) -> [AggregateGroup<Key, Value?>] {
        run(in: context, less: { Self.nilFirst($0, $1) }) { context, members in Self.rows(members, context).lazy.compactMap { $0[keyPath: field] }.max() }
    }

    /// Each group's entities, in the query's order (relations `.none`); sorted by aggregate,
    /// by the number of entities.
    public func entities(in context: Context? = nil) -> [(key: Key, entities: [Entity])] {
        let groups = run(in: context, less: { $0.count < $1.count }) { context, members in Self.rows(members, context) }
        return groups.map { ($0.key, $0.value) }
    }

    // MARK: Running

    /// Groups the result, computes `value` per group from its members' keys, then orders
    /// (`less` compares two values for ``sortedByAggregate(descending:)``) and limits.
    private func run<Value>(in context: Context?, less: (Value, Value) -> Bool,
                            _ value: (Context, [Int32]) -> Value) -> [AggregateGroup<Key, Value>] {
        let (query, context) = self.query.running(in: context ?? self.query.context ?? Context())
        let groups = partition(context, query.execute(in: context).keys)
        var positions = Array(groups.indices)
        var values: [Value] = []
        values.reserveCapacity(groups.count)
        for group in groups { values.append(value(context, group.members)) }
        switch order {
        case .firstAppearance:
            break
        case .key(let descending):
            positions.sort { a, b in
                let order = groups[a].order.compare(groups[b].order)
                return order != 0 ? (order < 0) != descending : a < b
            }
        case .aggregate(let descending):
            // Stable: ties keep the order of first appearance.
            positions.sort { a, b in
                let (x, y) = descending ? (values[b], values[a]) : (values[a], values[b])
                if less(x, y) { return true }
                if less(y, x) { return false }
                return a < b
            }
        }
        if let limit, limit < positions.count { positions.removeLast(positions.count - limit) }
        return positions.map { AggregateGroup(key: groups[$0].key, value: values[$0], count: groups[$0].members.count) }
    }

    /// The stored rows of `members`.
    private static func rows(_ members: [Int32], _ context: Context) -> [Entity] {
        members.compactMap { context.row(Entity.self, $0) }
    }

    /// Orders optionals as sorts and indexes do: nil first.
    private static func nilFirst<Value: Comparable>(_ a: Value?, _ b: Value?) -> Bool {
        guard let b else { return false }
        guard let a else { return true }
        return a < b
    }
}

extension IndexKey {
    /// -1, 0 or 1 as `self` sorts before, with or after `other`, field by field.
    func compare(_ other: IndexKey) -> Int {
        for index in 0..<Swift.min(count, other.count) where self[index] != other[index] {
            return self[index] < other[index] ? -1 : 1
        }
        return count == other.count ? 0 : (count < other.count ? -1 : 1)
    }
}
