/// Aggregates and projections of a query made without a context, in the context given
/// (see ``QueryList`` for each). Grouping with aggregates per group needs the context first:
/// `query.in(context).group(by: \.status).count()`.
extension ContextFreeQueryList {
    /// The sum of a field over the result in `context`.
    public func sum<Value: AdditiveArithmetic>(_ field: KeyPath<Entity, Value>, in context: Context) -> Value {
        query.sum(field, in: context)
    }

    /// The sum of an optional field over the result in `context`, nils skipped.
    public func sum<Value: AdditiveArithmetic>(_ field: KeyPath<Entity, Value?>, in context: Context) -> Value {
        query.sum(field, in: context)
    }

    /// The mean of an integer field over the result in `context`; nil for an empty result.
    public func average<Value: BinaryInteger>(_ field: KeyPath<Entity, Value>, in context: Context) -> Double? {
        query.average(field, in: context)
    }

    /// The mean of an optional integer field where it is set; nil when none is.
    public func average<Value: BinaryInteger>(_ field: KeyPath<Entity, Value?>, in context: Context) -> Double? {
        query.average(field, in: context)
    }

    /// The mean of a floating-point field over the result in `context`; nil for an empty result.
    public func average<Value: BinaryFloatingPoint>(_ field: KeyPath<Entity, Value>, in context: Context) -> Double? {
        query.average(field, in: context)
    }

    /// The mean of an optional floating-point field where it is set; nil when none is.
    public func average<Value: BinaryFloatingPoint>(_ field: KeyPath<Entity, Value?>, in context: Context) -> Double? {
        query.average(field, in: context)
    }

    /// The smallest value of a field over the result in `context`.
    public func min<Value: Comparable>(_ field: KeyPath<Entity, Value>, in context: Context) -> Value? {
        query.min(field, in: context)
    }

    /// The smallest value of an optional field, nils skipped.
    public func min<Value: Comparable>(_ field: KeyPath<Entity, Value?>, in context: Context) -> Value? {
        query.min(field, in: context)
    }

    /// The largest value of a field over the result in `context`.
    public func max<Value: Comparable>(_ field: KeyPath<Entity, Value>, in context: Context) -> Value? {
        query.max(field, in: context)
    }

    /// The largest value of an optional field, nils skipped.
    public func max<Value: Comparable>(_ field: KeyPath<Entity, Value?>, in context: Context) -> Value? {
        query.max(field, in: context)
    }

    /// The distinct values of a field over the result in `context`.
    public func distinct<Value: Hashable>(_ field: KeyPath<Entity, Value>, in context: Context) -> [Value] {
        query.distinct(field, in: context)
    }

    /// The result's entities in `context` grouped by a field.
    public func grouped<Key: Hashable>(by field: KeyPath<Entity, Key>, in context: Context) -> [(key: Key, entities: [Entity])] {
        query.grouped(by: field, in: context)
    }

    /// The fields of each entity of the result in `context`, in the query's order.
    public func select<each Value>(_ field: repeat KeyPath<Entity, each Value>, in context: Context) -> [(repeat each Value)] {
        query.select(repeat each field, in: context)
    }
}
