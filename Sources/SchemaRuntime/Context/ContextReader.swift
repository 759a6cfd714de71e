/// Where a context reads on demand (a store's snapshot answering queries through SQL): given a
/// query, the context holding every row and link the query reads, and the query to run there.
///
/// A context with a reader holds no rows itself; each query entry point (``QueryList``,
/// ``Query``, aggregates, grouping, pages) first asks the reader for the context to run in,
/// then runs as it would on a resident graph, so results are the same by construction. The
/// returned context has no reader.
public protocol ContextReader: AnyObject, Sendable {
    /// The context `list` runs in, and the query to run there (the same query, or one whose
    /// source names the rows the reader found in the order it found them). `context` is the
    /// context reading through this reader (a write's context holds the write's changes).
    func materialize<Entity: EntityModelProtocol>(_ list: QueryList<Entity>, in context: Context) -> (QueryList<Entity>, Context)
    /// The context `query` resolves in.
    func materialize<Entity: EntityModelProtocol>(_ query: Query<Entity>, in context: Context) -> Context
    /// The number of entities `list` resolves to when the reader can count them without
    /// materializing them (SQL answers the filter exactly), else nil.
    func count<Entity: EntityModelProtocol>(_ list: QueryList<Entity>, in context: Context) -> Int?
    /// The number of stored entities of `type`, without reading rows.
    func count<Entity: EntityModelProtocol>(of type: Entity.Type, in context: Context) -> Int
    /// A context holding every stored entity and link (for walks the reader cannot bound,
    /// such as ``EntityModelProtocol/updatedAt(in:reachingThroughStoredLinks:)``). O(stored graph).
    func materializeEverything(in context: Context) -> Context
}

extension Context {
    /// An empty context whose tables keep no indexes: for one query's rows, read from a
    /// store, where scanning them is cheaper than indexing them. Queries answer alike.
    @_spi(SchemaStore)
    public static func unindexed() -> Context {
        var context = Context()
        context.keepsIndexes = false
        context.holdsFewRows = true
        return context
    }

    /// For a context reading on demand: the context holding the row of `id`, read through
    /// the reader; nil for a context holding its graph.
    func holding<Entity: EntityModelProtocol>(_ id: Entity.ID, _ type: Entity.Type) -> Context? {
        reader.map { $0.materialize(Query<Entity>(id: id), in: self) }
    }

    /// ``holding(_:_:)`` with every link of the entity (to stored ids or not), for reading
    /// it whole (``EntityModelProtocol/asDeleted(in:)``).
    func holdingWithEveryLink<Entity: EntityModelProtocol>(_ id: Entity.ID, _ type: Entity.Type) -> Context? {
        reader.map { $0.materialize(Query<Entity>(id: id).with(.ids), in: self) }
    }

    /// For a context reading on demand: a context holding every stored entity of `type`
    /// with every link it holds, in storage order; for a context holding its graph, itself.
    /// O(stored entities of `type` and their links).
    func holdingEveryEntity<Entity: EntityModelProtocol>(of type: Entity.Type) -> Context {
        guard let reader else { return self }
        return reader.materialize(QueryList<Entity>(context: nil, source: .all).with(.ids), in: self).1
    }

    /// A context reading on demand through `reader`: it holds nothing itself.
    @_spi(SchemaStore)
    public init(reader: any ContextReader) {
        self.init()
        self.reader = reader
    }
}

@_spi(SchemaStore)
extension QueryList {
    /// The query's filter, if any.
    public var filterPredicate: Predicate<Entity>? { predicate }
    /// Whether the query's source is every stored entity.
    public var readsAll: Bool { if case .all = source { true } else { false } }
    /// For a list of the entities one entity links to (`Chat.query(id).related(\.$messages)`):
    /// that entity and the slot.
    public var linkOrigin: RelatedOrigin? { relatedOrigin }
    /// The ids the query lists, if its source is a list of ids.
    public var listedIDs: [Entity.ID]? { if case .ids(let ids) = source { ids } else { nil } }
    /// The relations the query follows from the entities it reads: its filter's relation
    /// conditions and its nested queries.
    public var readReach: ReadReach { queryReach }
}

extension QueryList {
    /// See ``readReach``.
    @usableFromInline
    var queryReach: ReadReach {
        (predicate?.node.readReach ?? ReadReach()).merged(with: nesting.reach).merged(with: additionalReach)
    }
    /// The sort fields, in order, each with its direction; empty for no field sort.
    public var sortFields: [(keyPath: AnyKeyPath, descending: Bool)] { sortKeys.map { ($0.keyPath, $0.descending) } }
    /// Whether only the filter, the field sort and the limit and offset shape the result (no
    /// distinct, no keyset page, no save-time order, no source restriction).
    public var isPlainFilterSortLimit: Bool {
        distinctKey == nil && keyset == nil && saveTimeOrder == nil && sources == nil
    }
    public var limitCount: Int? { limit }
    public var offsetCount: Int { offset }

    /// The query over exactly `keys` of a materialized context, in that order, with its offset
    /// already applied by the reader when `offsetApplied`.
    public func reading(keys: [Int32], offsetApplied: Bool) -> QueryList {
        var copy = self
        copy.source = .keys(keys)
        if offsetApplied { copy.offset = 0 }
        return copy
    }

    /// The query answered by the reader: exactly `keys`, in that order, which its filter,
    /// sort, offset and limit already chose (SQL ran them all, exactly as Swift would).
    /// Nothing is filtered or sorted again: O(keys). The filter and sort stay known, for
    /// what reads them (the cursors of pages).
    public func answered(by keys: [Int32]) -> QueryList {
        var copy = self
        copy.source = .keys(keys)
        copy.offset = 0
        copy.isAnswered = true
        return copy
    }

    /// This query's rows, from the context it runs in (the reader's materialized one for a
    /// context that reads on demand).
    @usableFromInline
    func materialized(_ context: Context) -> (QueryList, Context)? {
        context.reader.map { $0.materialize(self, in: context) }
    }

    /// The query to run and the context to run it in: `context` itself, unless it reads on
    /// demand (then the reader's materialized context).
    func running(in context: Context) -> (QueryList, Context) {
        materialized(context) ?? (self, context)
    }
}

@_spi(SchemaStore)
extension Query {
    /// The queried id, when the query names one (not `first()` or a related query).
    public var namedID: Entity.ID? { derivedKeyIsSet ? nil : id }
    public var readReach: ReadReach { nesting.reach }
}

/// The entity and slot whose links a `related(_:)` list reads.
@_spi(SchemaStore)
public struct RelatedOrigin: Sendable {
    /// The entity type holding the links, its id as stored, and the slot.
    public let table: ObjectIdentifier
    public let id: StoredValue
    public let slot: LinkSlot
}

@_spi(SchemaStore)
extension IndexDescriptor {
    /// The indexed fields in order, each with its direction; empty for a full-text index.
    public var indexedFields: [(keyPath: AnyKeyPath & Sendable, descending: Bool)] { fields.map { ($0.keyPath, $0.descending) } }
    /// Whether no two stored entities may hold the same key.
    public var isUniqueIndex: Bool { isUnique }
}
