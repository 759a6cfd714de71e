@_spi(SchemaStore) import SchemaRuntime

/// What the unified view of a user store and its packs needs from an entity type.
extension EntityPersister {
    func key(of value: StoredValue, in context: Context) throws -> Int32? {
        context.internedKey(of: try Entity.ID(storedValue: value), Entity.self)
    }

    func rowKeys(in context: Context) -> [Int32] {
        context.ids(of: Entity.self).map { context.internedKey(of: $0, Entity.self)! }
    }

    func source(of key: Int32, in context: Context) -> EntitySource {
        context.source(of: Entity.self, key: key)
    }

    func setSource(_ source: EntitySource, of key: Int32, in context: inout Context) {
        context.setSource(source, of: Entity.self, key: key)
    }

    func removeLoadedRow(_ key: Int32, in context: inout Context) {
        context.removeLoadedRow(Entity.self, key: key)
    }

    func sameRow(_ key: Int32, in context: Context, as otherKey: Int32, in other: Context) throws -> Bool {
        let row = context.storedRow(Entity.self, key: key), otherRow = other.storedRow(Entity.self, key: otherKey)
        guard let row, let otherRow else { return row == nil && otherRow == nil }
        guard context.savedAt(Entity.self, key: key) == other.savedAt(Entity.self, key: otherKey) else { return false }
        if let equal { return equal(row, otherRow) }
        return try rowValues(key, in: context) == rowValues(otherKey, in: other)
    }

    func restoreRow(_ key: Int32, in context: inout Context, from otherKey: Int32, in other: Context) throws {
        guard let row = other.storedRow(Entity.self, key: otherKey) else { return }
        try context.restoreRow(row, savedAt: other.savedAt(Entity.self, key: otherKey))
    }

    func changes(from before: Context, to after: Context, targets: [ObjectIdentifier: any AnyEntityPersister]) -> AnyEntityChanges {
        var changes = AnyEntityChanges()
        for id in after.ids(of: Entity.self) {
            let key = after.internedKey(of: id, Entity.self)!
            guard let oldKey = before.internedKey(of: id, Entity.self), before.storedRow(Entity.self, key: oldKey) != nil else {
                changes.inserted.append(id)
                continue
            }
            if !((try? sameRow(key, in: after, as: oldKey, in: before)) ?? false) { changes.updated.append(id) }
            let relinked = relations.filter { relation in
                guard let target = targets[relation.target] else { return false }
                return Self.targetIDs(relation, of: oldKey, in: before, target: target) != Self.targetIDs(relation, of: key, in: after, target: target)
            }
            if !relinked.isEmpty { changes.relinked.append((id, relinked.map(\.name))) }
        }
        for id in before.ids(of: Entity.self) where after.find(Entity.self, id: id) == nil { changes.deleted.append(id) }
        return changes
    }

    private static func targetIDs(_ relation: RelationInfo, of key: Int32, in context: Context, target: any AnyEntityPersister) -> [StoredValue] {
        context.targetKeys(ObjectIdentifier(Entity.self), relation.slot, of: key).map { target.idValue($0, in: context) }
    }
}
