@_spi(SchemaStore) import SchemaRuntime

extension Store {
    /// Every commit from now on, in order, each once (``StoreObservation`` says when it ends).
    ///
    /// ```swift
    /// for await changes in store.changes() {
    ///     print("commit \(changes.commit) changed \(changes.entityNames)")
    /// }
    /// ```
    public func changes() -> StoreObservation<StoreChanges> {
        observeCommits { $0 }
    }

    /// The commits that change an entity of `type` (a row or a link), in order, each once.
    public func changes<Entity: EntityModelProtocol>(to type: Entity.Type) -> StoreObservation<StoreChanges> {
        observeCommits { $0.contains(type) ? $0 : nil }
    }

    /// What each commit does to the entity with `id`: inserted, updated (fields or links),
    /// deleted. Commits that leave it as it was are skipped.
    public func changes<Entity: EntityModelProtocol>(of type: Entity.Type, id: Entity.ID) -> StoreObservation<EntityChange<Entity>> {
        observeCommits { changes in
            guard let entityChanges = changes.changes(type), entityChanges.contains(id) else { return nil }
            if entityChanges.deleted.contains(id) { return .deleted(id) }
            guard let entity = Entity.query(id, in: changes.context).resolve() else { return nil }
            return entityChanges.inserted.contains(id) ? .inserted(entity) : .updated(entity)
        }
    }

    /// The number of registered observations (streams and live queries that have not ended).
    public var observerCount: Int { observers.count }

    private func observeCommits<Element: Sendable>(_ transform: @escaping @Sendable (StoreChanges) -> Element?) -> StoreObservation<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .unbounded)
        let id = observers.add(receive: { commit in
            if let changes = commit.changes, let element = transform(changes) { continuation.yield(element) }
        }, finish: { continuation.finish() })
        // A store reading on demand learns of commits from the file's log (registered first,
        // so that the check that follows the log sees an observer).
        startObservingOnDemand()
        let registry = observers
        if let id { continuation.onTermination = { _ in registry.remove(id) } }
        return StoreObservation(stream: stream, token: ObservationToken(registry: observers, id: id))
    }
}
