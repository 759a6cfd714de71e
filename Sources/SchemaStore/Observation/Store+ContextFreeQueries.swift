@_spi(SchemaStore) import SchemaRuntime

/// Observing queries made without a context (`User.query()`, `Message.filter(...)`,
/// `Chat.query("c1").related(\.$messages)`): the store resolves them in each new snapshot,
/// which is what they are for.
extension Store {
    /// The result of `query`, now and after every commit that can change it.
    public func observe<Entity: EntityModelProtocol>(_ query: ContextFreeQueryList<Entity>) -> LiveResults<[Entity]> {
        observe(query.query)
    }

    /// The entity `query` finds (nil while there is none), now and after every commit that
    /// can change it.
    public func observe<Entity: EntityModelProtocol>(_ query: ContextFreeQuery<Entity>) -> LiveResults<Entity?> {
        observe(query.query)
    }

    /// A ``LiveQuery`` of `query`, holding its result now.
    @MainActor
    public func liveQuery<Entity: EntityModelProtocol>(_ query: ContextFreeQueryList<Entity>) -> LiveQuery<[Entity]> {
        liveQuery(query.query)
    }

    /// A ``LiveQuery`` of the entity `query` finds (nil while there is none).
    @MainActor
    public func liveQuery<Entity: EntityModelProtocol>(_ query: ContextFreeQuery<Entity>) -> LiveQuery<Entity?> {
        liveQuery(query.query)
    }

    /// The SQL an on-demand store runs first for `query` (``explainSQL(_:)-(QueryList<Entity>)``).
    public func explainSQL<Entity: EntityModelProtocol>(_ query: ContextFreeQueryList<Entity>) -> (sql: String, plan: [String])? {
        explainSQL(query.query)
    }
}
