@_spi(SchemaStore) import SchemaRuntime

extension StoreChanges {
    /// The changes of a commit, from its ``ChangeSet`` and the graphs before and after it;
    /// nil when nothing changed. Rows are compared with `==` (column by column for a type
    /// that is not `Equatable`) and links target by target, so a write that stores what was
    /// there reports nothing. O(changed rows × fields + changed links), plus the length of
    /// each to-many list the write replaced or reordered.
    init?(commit: Int, changeSet: ChangeSet, before: Context, after: Context, layout: StoreLayout) throws {
        var byTable: [ObjectIdentifier: AnyEntityChanges] = [:]
        var deletedKeys: [ObjectIdentifier: Set<Int32>] = [:]
        for (table, keys) in changeSet.rows {
            guard let persister = layout.persisterByTable[table] else { continue }
            var changes = AnyEntityChanges()
            for key in keys {
                switch try persister.rowChange(key, before: before, after: after) {
                case .inserted: changes.inserted.append(persister.anyID(key, in: after))
                case .deleted:
                    changes.deleted.append(persister.anyID(key, in: after))
                    deletedKeys[table, default: []].insert(key)
                case .updated: changes.updated.append(persister.anyID(key, in: after))
                case .unchanged: break
                }
            }
            byTable[table] = changes
        }
        // Per table and key, the relations whose links changed, in the order of the slots.
        var relinked: [ObjectIdentifier: [Int32: Set<LinkSlot>]] = [:]
        var order: [ObjectIdentifier: [Int32]] = [:]
        func note(_ table: ObjectIdentifier, _ key: Int32, _ slot: LinkSlot) {
            guard deletedKeys[table]?.contains(key) != true, layout.persisterByTable[table] != nil else { return }
            if relinked[table]?[key] == nil { order[table, default: []].append(key) }
            relinked[table, default: [:]][key, default: []].insert(slot)
        }
        for (slot, keys) in changeSet.toOne {
            for key in keys where before.linkedKey(slot.table, slot.slot, of: key) != after.linkedKey(slot.table, slot.slot, of: key) {
                note(slot.table, key, slot.slot)
            }
        }
        for (slot, lists) in changeSet.toMany {
            guard let keys = changeSet.toManyOrder[slot] else { continue }
            for key in keys {
                guard let change = lists[key] else { continue }
                if Self.listChanged(change, slot, key, before: before, after: after) { note(slot.table, key, slot.slot) }
            }
        }
        for (table, keys) in order {
            guard let persister = layout.persisterByTable[table] else { continue }
            for key in keys where persister.hasRow(key, in: after) {
                let slots = relinked[table]![key]!
                let names = persister.relations.filter { slots.contains($0.slot) }.map(\.name)
                byTable[table, default: AnyEntityChanges()].relinked.append((persister.anyID(key, in: after), names))
            }
        }
        self.init(commit: commit, after: after, layout: layout) { byTable[$0.table] }
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

    /// Whether a to-many list differs after the write: compared whole when the write replaced
    /// it or removed and appended one target (which moves it to the end), else at the targets
    /// it appended or removed (O(1) each, whatever the list's length).
    private static func listChanged(_ change: ChangeSet.ListChange, _ slot: ChangeSet.Slot, _ key: Int32, before: Context, after: Context) -> Bool {
        if change.isReplaced || change.appended.contains(where: change.removed.contains) {
            return before.linkedKeys(slot.table, slot.slot, of: key) != after.linkedKeys(slot.table, slot.slot, of: key)
        }
        let targets = change.removed.union(change.appended)
        return targets.contains { before.links(slot.table, slot.slot, of: key, to: $0) != after.links(slot.table, slot.slot, of: key, to: $0) }
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
