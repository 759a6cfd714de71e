@_spi(SchemaStore) import SchemaRuntime

extension StoreChanges {
    /// The changes of a commit, from its ``ChangeSet`` and the graphs before and after it
    /// (``CommitDescription``); nil when nothing changed.
    init?(commit: Int, changeSet: ChangeSet, before: Context, after: Context, layout: StoreLayout) throws {
        self.init(commit: commit, description: try CommitDescription(changeSet: changeSet, before: before, after: after, layout: layout),
                  after: after, layout: layout)
    }

    /// The changes a ``CommitDescription`` lists; nil when it lists none.
    init?(commit: Int, description: CommitDescription, after: Context, layout: StoreLayout) {
        self.init(commit: commit, after: after, layout: layout) { description.changes(of: $0, in: after) }
    }

    /// The changes per entity type, in schema order; nil when there are none.
    private init?(commit: Int, after: Context, layout: StoreLayout, changes: (any AnyEntityPersister) -> AnyEntityChanges?) {
        var entities: [String: AnyEntityChanges] = [:]
        var names: [String] = []
        for persister in layout.entities {
            guard let changes = changes(persister), !changes.isEmpty else { continue }
            entities[persister.entityName] = changes
            names.append(persister.entityName)
        }
        guard !names.isEmpty else { return nil }
        self.commit = commit
        self.context = after
        self.entityNames = names
        self.entities = entities
    }
}

extension StoreChanges {
    /// The changes between two graphs loaded separately (keys do not correspond), compared
    /// by id: every entity of every type, rows with `==` and every relation's targets by id.
    /// O(size of both graphs); for packs installed or removed. Nil when they agree.
    init?(commit: Int, reloadedFrom before: Context, to after: Context, layout: StoreLayout) {
        self.init(commit: commit, after: after, layout: layout) { $0.changes(from: before, to: after, targets: layout.persisterByTable) }
    }
}
