@_spi(SchemaStore) import SchemaRuntime

/// What one committed write changed, per entity type: ids inserted, updated and deleted, and
/// ids whose links changed, with the relations that did. Cascades, unique-index upserts and
/// merges are included: it describes the graph before and after the commit, not the calls
/// that made it. A write that changes nothing produces no `StoreChanges`.
///
/// ```swift
/// for await changes in store.changes() {
///     if let messages = changes.changes(Message.self) {
///         print(messages.inserted, messages.deleted)
///     }
/// }
/// ```
public struct StoreChanges: Sendable {
    /// The commit's number: 1 for the first commit after the store opened, then one more per
    /// commit that changed something.
    public let commit: Int
    /// The graph as this commit left it: consistent with the changes, whatever commits follow.
    public let context: Context
    /// The changed entity types' names, in schema order.
    public let entityNames: [String]
    let entities: [String: AnyEntityChanges]

    /// What the commit changed among entities of `type`; nil when it changed none of them.
    public func changes<Entity: EntityModelProtocol>(_ type: Entity.Type) -> EntityChanges<Entity>? {
        entities[Entity.entityName].map(EntityChanges.init)
    }

    /// The same changes as commit `number`, leaving `context`.
    func renumbered(_ number: Int, context: Context) -> StoreChanges {
        StoreChanges(commit: number, context: context, entityNames: entityNames, entities: entities)
    }

    init(commit: Int, context: Context, entityNames: [String], entities: [String: AnyEntityChanges]) {
        self.commit = commit
        self.context = context
        self.entityNames = entityNames
        self.entities = entities
    }

    /// Whether the commit changed any entity of `type` (a row or a link).
    public func contains<Entity: EntityModelProtocol>(_ type: Entity.Type) -> Bool {
        entities[Entity.entityName] != nil
    }
}

/// What one commit changed among the entities of one type.
public struct EntityChanges<Entity: EntityModelProtocol>: Sendable {
    /// Ids stored by the commit that were not stored before it, in the order of their first write.
    public let inserted: [Entity.ID]
    /// Ids stored before and after the commit whose stored fields differ (a `metadata
    /// updatedAt` entity saved again counts: its save time changed).
    public let updated: [Entity.ID]
    /// Ids stored before the commit and not after it.
    public let deleted: [Entity.ID]
    /// Ids stored after the commit whose links changed, each with the names of the relations
    /// whose links changed, in schema order. Inserted entities are listed with the relations
    /// they were saved with; deleted ones are not listed.
    public let relinked: [Entity.ID: [String]]

    init(_ changes: AnyEntityChanges) {
        inserted = changes.inserted.map { $0 as! Entity.ID }
        updated = changes.updated.map { $0 as! Entity.ID }
        deleted = changes.deleted.map { $0 as! Entity.ID }
        var relinked: [Entity.ID: [String]] = [:]
        for (id, relations) in changes.relinked { relinked[id as! Entity.ID] = relations }
        self.relinked = relinked
    }

    /// Whether the entity with `id` was inserted, updated, deleted or relinked.
    public func contains(_ id: Entity.ID) -> Bool {
        inserted.contains(id) || updated.contains(id) || deleted.contains(id) || relinked[id] != nil
    }
}

/// ``EntityChanges`` with the ids type-erased, as a commit records them.
struct AnyEntityChanges: Sendable {
    var inserted: [any Hashable & Sendable] = []
    var updated: [any Hashable & Sendable] = []
    var deleted: [any Hashable & Sendable] = []
    var relinked: [(any Hashable & Sendable, [String])] = []

    var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty && relinked.isEmpty }
}
