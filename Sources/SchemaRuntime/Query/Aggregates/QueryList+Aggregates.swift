/// Aggregates over a query's result: computed from the stored rows the query finds (after
/// its filter, order and limit), without resolving relations. Each takes the context the
/// query was made with, or the one given (`in:`) for a query made without one.
///
/// ```swift
/// let total = Message.filter(\.timestamp > cutoff, in: context).sum(\.likes)
/// let ages = User.query(in: context).average(\.age)
/// let authors = Message.query(in: context).distinct(\.authorName)
/// ```
extension QueryList {
    /// The stored rows of the result, in the query's order. O(result) after the query.
    func rows(in context: Context?) -> [Entity] {
        let (list, context) = running(in: context ?? self.context ?? Context())
        return list.execute(in: context).keys.compactMap { context.row(Entity.self, $0) }
    }


    /// The sum of a field over the result (zero for an empty result).
    public func sum<Value: AdditiveArithmetic>(_ field: KeyPath<Entity, Value>, in context: Context? = nil) -> Value {
        rows(in: context).reduce(.zero) { $0 + $1[keyPath: field] }
    }

    /// The sum of an optional field over the result, nils skipped.
    public func sum<Value: AdditiveArithmetic>(_ field: KeyPath<Entity, Value?>, in context: Context? = nil) -> Value {
        rows(in: context).reduce(.zero) { $0 + ($1[keyPath: field] ?? .zero) }
    }

    /// The mean of an integer field over the result; nil for an empty result.
    public func average<Value: BinaryInteger>(_ field: KeyPath<Entity, Value>, in context: Context? = nil) -> Double? {
        mean(rows(in: context).map { Double($0[keyPath: field]) })
    }

    /// The mean of an optional integer field over the entities where it is set; nil when none is.
    public func average<Value: BinaryInteger>(_ field: KeyPath<Entity, Value?>, in context: Context? = nil) -> Double? {
        mean(rows(in: context).compactMap { $0[keyPath: field].map { Double($0) } })
    }

    /// The mean of a floating-point field over the result; nil for an empty result.
    public func average<Value: BinaryFloatingPoint>(_ field: KeyPath<Entity, Value>, in context: Context? = nil) -> Double? {
        mean(rows(in: context).map { Double($0[keyPath: field]) })
    }

    /// The mean of an optional floating-point field over the entities where it is set.
    public func average<Value: BinaryFloatingPoint>(_ field: KeyPath<Entity, Value?>, in context: Context? = nil) -> Double? {
        mean(rows(in: context).compactMap { $0[keyPath: field].map { Double($0) } })
    }

    /// The smallest value of a field over the result; nil for an empty result.
    public func min<Value: Comparable>(_ field: KeyPath<Entity, Value>, in context: Context? = nil) -> Value? {
        rows(in: context).lazy.map { $0[keyPath: field] }.min()
    }

    /// The smallest value of an optional field, nils skipped; nil when none is set.
    public func min<Value: Comparable>(_ field: KeyPath<Entity, Value?>, in context: Context? = nil) -> Value? {
        rows(in: context).lazy.compactMap { $0[keyPath: field] }.min()
    }

    /// The largest value of a field over the result; nil for an empty result.
    public func max<Value: Comparable>(_ field: KeyPath<Entity, Value>, in context: Context? = nil) -> Value? {
        rows(in: context).lazy.map { $0[keyPath: field] }.max()
    }

    /// The largest value of an optional field, nils skipped; nil when none is set.
    public func max<Value: Comparable>(_ field: KeyPath<Entity, Value?>, in context: Context? = nil) -> Value? {
        rows(in: context).lazy.compactMap { $0[keyPath: field] }.max()
    }

    /// The distinct values of a field over the result, in the order of their first entity.
    public func distinct<Value: Hashable>(_ field: KeyPath<Entity, Value>, in context: Context? = nil) -> [Value] {
        var seen = Set<Value>()
        return rows(in: context).compactMap { seen.insert($0[keyPath: field]).inserted ? $0[keyPath: field] : nil }
    }

    /// The result's entities grouped by a field: one group per value, groups in the order of
    /// their first entity, entities in the query's order (relations `.none`).
    public func grouped<Key: Hashable>(by field: KeyPath<Entity, Key>, in context: Context? = nil) -> [(key: Key, entities: [Entity])] {
        Self.group(rows(in: context).lazy.map { ($0[keyPath: field], $0) })
    }

    /// The result's entities grouped by what a to-one relation links them to (`nil`: not
    /// linked, or linked to an entity that is not stored): messages by chat, by author. Read
    /// from the link column, without resolving the related entities. Same order as
    /// ``grouped(by:in:)``; ``group(by:)-(KeyPath<Entity,ToOne<Target,Directionality,Constraint>>)``
    /// gives aggregates per group.
    public func grouped<Target, Directionality, Constraint>(
        by relation: KeyPath<Entity, ToOne<Target, Directionality, Constraint>>, in context: Context? = nil
    ) -> [(key: Target.ID?, entities: [Entity])] {
        group(by: relation).entities(in: context)
    }

    /// Entities grouped by key: groups in the order of their first entity, entities in order.
    private static func group<Key: Hashable>(_ items: some Sequence<(Key, Entity)>) -> [(key: Key, entities: [Entity])] {
        var positions: [Key: Int] = [:]
        var groups: [(key: Key, entities: [Entity])] = []
        for (key, entity) in items {
            if let position = positions[key] {
                groups[position].entities.append(entity)
            } else {
                positions[key] = groups.count
                groups.append((key, [entity]))
            }
        }
        return groups
    }
}

/// The arithmetic mean, nil for no values.
func mean(_ values: [Double]) -> Double? {
    values.isEmpty ? nil : values.reduce(0, +) / Double(values.count)
}
