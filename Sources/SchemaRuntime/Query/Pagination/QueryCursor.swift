/// Where a page of a sorted query ended: the last entity's sort values and id. The next
/// page starts after that position, whatever was inserted or deleted meanwhile (keyset
/// pagination): no entity is skipped or repeated because others moved.
public struct QueryCursor<Entity: EntityModelProtocol>: Hashable, Sendable {
    /// The last entity's sort values, in the query's sort order.
    let values: [IndexValue]
    /// The last entity's id, which breaks ties between equal sort values.
    let id: IndexValue

    /// The position of `entity` in a query sorted by `sortKeys`.
    init(_ entity: Entity, sortKeys: [SortKey<Entity>]) {
        values = sortKeys.map { $0.value(entity) }
        id = Self.idValue(entity.id)
    }

    /// An id as the tie-breaker compares it: its index value (String, Int, UUID ids), or
    /// its description for other id types.
    static func idValue(_ id: Entity.ID) -> IndexValue {
        (id as? any IndexKeyConvertible)?.indexValue ?? .string("\(id)")
    }
}

/// One page of a query: ``QueryList/page(size:after:)``.
public struct QueryPage<Entity: EntityModelProtocol> {
    /// The page's entities, shaped by the query's nested relations.
    public let entities: [Entity]
    /// Where the next page starts; nil when this is the last page.
    public let next: QueryCursor<Entity>?
}

extension QueryPage: Sendable where Entity: Sendable {}
