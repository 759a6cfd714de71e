import Foundation

/// A list query made without a context: `Recipe.query()`, `Recipe.query(ids)`,
/// `Recipe.filter(\.minutes < 30)`, or `.filter(...)` inside `or(_:)` and `and(_:)`.
///
/// It describes what to find; a context says where. Run it with ``resolve(in:)`` (or any
/// result method taking `in:`), observe it with a store (`store.observe(_:)` resolves it in
/// every new snapshot), or combine it with a query that has a context
/// (`Recipe.query(in: context).or(.filter(\.minutes < 10))`). It has no `resolve()`: with no
/// context to read, it could only answer "nothing", so that spelling does not compile.
///
/// Every refinement of ``QueryList`` (filters, sorts, limits, nested relations, sources,
/// keyset positions) is available and keeps the query context-free.
public struct ContextFreeQueryList<Entity: EntityModelProtocol>: NestedQuery {
    /// The query, with no context.
    @_spi(SchemaStore) public private(set) var query: QueryList<Entity>

    init(_ query: QueryList<Entity>) {
        self.query = query
    }

    public var nesting: Nesting<Entity> {
        get { query.nesting }
        set { query.nesting = newValue }
    }

    private func refined(_ change: (QueryList<Entity>) -> QueryList<Entity>) -> ContextFreeQueryList {
        ContextFreeQueryList(change(query))
    }

    // MARK: Running it in a context

    /// The entities in `context`, filtered, sorted and limited as the query says, shaped by
    /// the nested relations (``QueryList/resolve(in:)``).
    public func resolve(in context: Context) -> [Entity] { query.resolve(in: context) }

    /// The query with `context`: `Recipe.filter(\.minutes < 30).in(context).sum(\.minutes)`.
    /// Every method of ``QueryList`` then runs in it, aggregates included.
    public func `in`(_ context: Context) -> QueryList<Entity> { query.bound(to: context) }

    /// Not available: a query made without a context has nothing to read.
    @available(*, unavailable, message: "a query made without a context resolves in one: use resolve(in: context), or make the query with `in: context`")
    public func resolve() -> [Entity] { [] }

    /// Not available: a query made without a context has nothing to count.
    @available(*, unavailable, message: "a query made without a context counts in one: use count(in: context), or make the query with `in: context`")
    public func count() -> Int { 0 }

    /// The number of entities the query finds in `context` (``QueryList/count(in:)``).
    public func count(in context: Context) -> Int { query.count(in: context) }

    /// A page of the result in `context` (``QueryList/page(size:after:in:)``).
    public func page(size: Int, after cursor: QueryCursor<Entity>? = nil, in context: Context) -> QueryPage<Entity> {
        query.page(size: size, after: cursor, in: context)
    }

    /// How the query runs in `context`: the indexes it uses, and what follows.
    public func explain(in context: Context) -> QueryPlan { self.in(context).explain() }

    // MARK: Refinements (see QueryList for each)

    /// Every entity of this type satisfying `predicate`: `.or(.filter(\.age > 30))`.
    public static func filter(_ predicate: Predicate<Entity>) -> ContextFreeQueryList {
        ContextFreeQueryList(QueryList(context: nil, source: .all).filter(predicate))
    }

    /// Keeps the entities satisfying `predicate` (and any earlier filter).
    public func filter(_ predicate: Predicate<Entity>) -> ContextFreeQueryList { refined { $0.filter(predicate) } }

    /// Keeps the entities for which `isIncluded` returns true; not index-assisted.
    public func filter(_ isIncluded: @escaping (Entity) -> Bool) -> ContextFreeQueryList { refined { $0.filter(isIncluded) } }

    /// Same as `filter(_:)`.
    public func and(_ predicate: Predicate<Entity>) -> ContextFreeQueryList { refined { $0.filter(predicate) } }

    /// Entities matched by this query and by `other`, each once, in source order.
    public func and(_ other: ContextFreeQueryList) -> ContextFreeQueryList { refined { $0.and(other.query) } }

    /// Entities matched by this query and by `other`, in `other`'s context.
    public func and(_ other: QueryList<Entity>) -> QueryList<Entity> { query.and(other) }

    /// Keeps the entities satisfying the current filter or `predicate`.
    public func or(_ predicate: Predicate<Entity>) -> ContextFreeQueryList { refined { $0.or(predicate) } }

    /// Entities matched by this query or by `other`, each once, in source order.
    public func or(_ other: ContextFreeQueryList) -> ContextFreeQueryList { refined { $0.or(other.query) } }

    /// Entities matched by this query or by `other`, in `other`'s context.
    public func or(_ other: QueryList<Entity>) -> QueryList<Entity> { query.or(other) }

    /// Keeps the entities from `sources` only.
    public func from(_ sources: EntitySource...) -> ContextFreeQueryList { refined { $0.from(Set(sources)) } }

    /// Keeps the entities from `sources` only.
    public func from(_ sources: Set<EntitySource>) -> ContextFreeQueryList { refined { $0.from(sources) } }

    /// Sorts by one key; `\.age.desc` sorts descending.
    public func sorted<A: IndexKeyConvertible>(by a: KeyPath<Entity, A>) -> ContextFreeQueryList {
        refined { $0.sorted(by: a) }
    }

    /// Sorts by two keys.
    public func sorted<A: IndexKeyConvertible, B: IndexKeyConvertible>(by a: KeyPath<Entity, A>, _ b: KeyPath<Entity, B>) -> ContextFreeQueryList {
        refined { $0.sorted(by: a, b) }
    }

    /// Sorts by three keys.
    public func sorted<A: IndexKeyConvertible, B: IndexKeyConvertible, C: IndexKeyConvertible>(
        by a: KeyPath<Entity, A>, _ b: KeyPath<Entity, B>, _ c: KeyPath<Entity, C>
    ) -> ContextFreeQueryList {
        refined { $0.sorted(by: a, b, c) }
    }

    /// Sorts by four keys.
    public func sorted<A: IndexKeyConvertible, B: IndexKeyConvertible, C: IndexKeyConvertible, D: IndexKeyConvertible>(
        by a: KeyPath<Entity, A>, _ b: KeyPath<Entity, B>, _ c: KeyPath<Entity, C>, _ d: KeyPath<Entity, D>
    ) -> ContextFreeQueryList {
        refined { $0.sorted(by: a, b, c, d) }
    }

    /// Sorts by save time (`.updatedAt`, `.updatedAt.desc`).
    public func sorted(by metadata: MetadataSort) -> ContextFreeQueryList { refined { $0.sorted(by: metadata) } }

    /// Keeps the first entity of each distinct combination of the fields.
    public func distinct<each Value: IndexKeyConvertible>(on field: repeat KeyPath<Entity, each Value>) -> ContextFreeQueryList {
        refined { $0.distinct(on: repeat each field) }
    }

    /// Entities saved at or after `date`.
    public func updated(since date: Date) -> ContextFreeQueryList { refined { $0.updated(since: date) } }

    /// Entities saved within `dates`.
    public func updated(within dates: ClosedRange<Date>) -> ContextFreeQueryList { refined { $0.updated(within: dates) } }

    /// At most `limit` entities, after skipping `offset`.
    public func limit(_ limit: Int, offset: Int = 0) -> ContextFreeQueryList { refined { $0.limit(limit, offset: offset) } }

    /// The entities after `entity` in the query's keyset order.
    public func after(_ entity: Entity) -> ContextFreeQueryList { refined { $0.after(entity) } }

    /// The entities after `cursor` in the query's keyset order.
    public func after(_ cursor: QueryCursor<Entity>) -> ContextFreeQueryList { refined { $0.after(cursor) } }

    /// A query for the first entity in this query's order.
    public func first() -> ContextFreeQuery<Entity> { ContextFreeQuery(query.first()) }

    /// A query for the last entity in this query's order.
    public func last() -> ContextFreeQuery<Entity> { ContextFreeQuery(query.last()) }
}
