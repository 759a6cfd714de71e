/// Where a page of a sorted query ended: after its last entity. The next page starts after
/// that entity's position, whatever was inserted or deleted meanwhile (keyset pagination):
/// no entity is skipped or repeated because others moved. The position is computed by the
/// query it is used with, so a cursor from a query sorted otherwise still means "after this
/// entity", never a mismatch.
public struct QueryCursor<Entity: EntityModelProtocol>: Hashable, Sendable {
    /// The last entity of the page, as it was then.
    let entity: Entity
    /// Its save time then (nil when it had none), for queries sorted by `.updatedAt`: the
    /// position stays where the page ended even if the entity is saved again meanwhile.
    let savedAt: Double?
    /// The entity's id, which identifies the cursor.
    let id: IndexValue

    init(_ entity: Entity, savedAt: Double?) {
        self.entity = entity
        self.savedAt = savedAt
        id = Self.idValue(entity.id)
    }

    /// An id as the tie-breaker compares it: its index value (String, Int, UUID ids), or
    /// its description for other id types.
    static func idValue(_ id: Entity.ID) -> IndexValue {
        (id as? any IndexKeyConvertible)?.indexValue ?? .string("\(id)")
    }

    public static func == (a: QueryCursor, b: QueryCursor) -> Bool { a.id == b.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
}

/// One page of a query: ``QueryList/page(size:after:)``.
public struct QueryPage<Entity: EntityModelProtocol> {
    /// The page's entities, shaped by the query's nested relations.
    public let entities: [Entity]
    /// Where the next page starts; nil when this is the last page.
    public let next: QueryCursor<Entity>?
}

extension QueryPage: Sendable where Entity: Sendable {}
