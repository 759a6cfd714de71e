/// A query for a list of entities: all of a type, some ids, or the targets of a relation.
///
/// ```swift
/// let chats = Chat.query(in: context).with(\.$messages).resolve()
/// ```
public struct QueryList<Entity: EntityModelProtocol>: NestedQuery {
    @usableFromInline
    enum Source {
        /// Every stored entity, in context order; inside a nested query, the related ones.
        case all
        /// These ids, in this order, each once.
        case ids([Entity.ID])
        case keys([Int32])
        /// Keys computed from the context the query resolves in (`related(_:)`).
        case derived((Context) -> [Int32])
        /// The entities any of these queries resolves to (`or(_:)` of two queries).
        case union([QueryList])
        /// The entities every one of these queries resolves to (`and(_:)` of two queries).
        case intersection([QueryList])
    }

    @usableFromInline private(set) var context: Context?
    @usableFromInline var source: Source
    public var nesting = Nesting<Entity>()
    var predicate: Predicate<Entity>?
    var sortKeys: [SortKey<Entity>] = []
    var limit: Int?
    var offset = 0
    /// The sources the result is restricted to (``from(_:)-swift.method``), nil for all.
    var sources: Set<EntitySource>?
    /// For ``distinct(on:)``: the fields whose combination each kept entity has first.
    var distinctKey: ((Entity) -> IndexKey)?
    /// For a paged query (``page(size:after:in:)``, ``after(_:)-(Entity)``): keyset order
    /// and where to start.
    var keyset: Keyset?
    /// For `sorted(by: .updatedAt)`: order by save time, descending when true.
    var saveTimeOrder: Bool?
    /// For a `.derived` source, what finding its keys depends on besides the keys themselves
    /// (the entity a `related(_:)` list starts from; ``QueryReach``).
    var originReach: ((Context) -> QueryReach)?
    /// Relations read by what runs on the result besides the query (grouping by a relation).
    var additionalReach = ReadReach()
    /// For `related(_:)` of a query naming its entity: where the list's links are.
    var relatedOrigin: RelatedOrigin?
    /// Whether the keys of its `.keys` source are already filtered and sorted (a reader
    /// answered it in SQL; ``answered(by:)``): execution keeps them as they are.
    var isAnswered = false

    @usableFromInline
    init(context: Context?, source: Source) {
        self.context = context
        self.source = source
    }

    init(context: Context, keys: [Int32]) {
        self.init(context: context, source: .keys(keys))
    }

    /// The same query in `context`.
    func bound(to context: Context) -> QueryList {
        var copy = self
        copy.context = context
        return copy
    }

    /// The entities in the query's context, shaped by the nested relations.
    ///
    /// Order: the sort, if any; else BM25 relevance for a full-text `matches` filter; else the
    /// source order: for `query(in:)`, context order (the order in which ids first appeared in
    /// the context); for `query(ids, in:)`, the order of `ids`; for `related(_:)` and nested
    /// lists, link order. Entities that sort equal, or score equal, keep the source order,
    /// whichever plan runs the query. Each entity appears once, even if `ids` repeats it, and
    /// ids that are not stored are skipped.
    @inlinable
    public func resolve() -> [Entity] {
        resolve(in: context ?? Context())
    }

    /// The entities in `context`, filtered, sorted and limited as the query says, shaped by
    /// the nested relations.
    @inlinable
    public func resolve(in context: Context) -> [Entity] {
        if let (list, context) = materialized(context) { return list.resolve(in: context) }
        let keys = execute(in: context).keys
        var result: [Entity] = []
        result.reserveCapacity(keys.count)
        for key in keys {
            if let entity = context.resolve(Entity.self, key: key, nesting: nesting) { result.append(entity) }
        }
        return result
    }

    /// The number of entities the query resolves to, without resolving them.
    public func count() -> Int {
        count(in: context ?? Context())
    }

    /// The number of entities the query resolves to in `context`, without resolving them.
    ///
    /// A filter one index answers whole (equality on indexed fields, a range on an ordered
    /// index, `updated(since:)`) is counted from the index without reading entities:
    /// O(log n + n / B) for a range (``OrderedIndexStorage/count(in:)``), O(1) for a hash
    /// or unique lookup. Other queries count the keys they find, reading no relations.
    public func count(in context: Context) -> Int {
        if let reader = context.reader {
            if let count = reader.count(self, in: context) { return count }
            let (list, context) = reader.materialize(self, in: context)
            return list.count(in: context)
        }
        if case .all = source, sources == nil, limit == nil, offset == 0, distinctKey == nil, keyset == nil {
            guard let predicate else { return context.count(of: Entity.self) }
            if let count = QueryPlanner<Entity>(context: context).exactCount(predicate.node) { return count }
        }
        return execute(in: context).keys.count
    }

    /// Whether the query does more than list its source: a nested list runs it only then.
    @usableFromInline
    var isRefined: Bool {
        switch source {
        case .union, .intersection: return true
        default: break
        }
        return predicate != nil || sources != nil || shapesResult
    }

    /// The source's keys in source order, each once (stored or not).
    func keys(in context: Context) -> [Int32] {
        switch source {
        case .all: return context.liveKeys(Entity.self)
        case .ids(let ids):
            var seen = Set<Int32>()
            return ids.compactMap { context.key(of: $0, Entity.self) }.filter { seen.insert($0).inserted }
        case .keys(let keys): return keys
        case .derived(let keys): return keys(context)
        case .union, .intersection: preconditionFailure("a combination of queries has no keys of its own")
        }
    }
}

extension EntityModelProtocol {
    /// A query for the entity with `id` in `context`.
    public static func query(_ id: ID, in context: Context) -> Query<Self> {
        Query(context: context, id: id)
    }

    /// A query for the entity with `id`, with no context: resolved with `resolve(in:)` or
    /// observed by a store.
    public static func query(_ id: ID) -> ContextFreeQuery<Self> {
        ContextFreeQuery(id: id)
    }

    /// A query for the entities with `ids` in `context`, in the order of `ids`.
    public static func query(_ ids: [ID], in context: Context) -> QueryList<Self> {
        QueryList(context: context, source: .ids(ids))
    }

    /// A query for the entities with `ids`, in the order of `ids`, with no context:
    /// resolved with `resolve(in:)` or observed by a store.
    public static func query(_ ids: [ID]) -> ContextFreeQueryList<Self> {
        ContextFreeQueryList(QueryList(context: nil, source: .ids(ids)))
    }

    /// A query for every stored entity of this type, in context order.
    public static func query(in context: Context) -> QueryList<Self> {
        QueryList(context: context, source: .all)
    }

    /// A query for every entity of this type, with no context: resolved with
    /// `resolve(in:)` or observed by a store.
    public static func query() -> ContextFreeQueryList<Self> {
        ContextFreeQueryList(QueryList(context: nil, source: .all))
    }

    /// Every stored entity of this type with every relation resolved as `nested` says.
    public static func queryAll(with nested: Nested..., in context: Context) -> QueryList<Self> {
        var list = QueryList<Self>(context: context, source: .all)
        list.nesting = .bulk(nested[...])
        return list
    }
}
