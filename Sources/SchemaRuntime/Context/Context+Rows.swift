extension Context {
    /// Stores `entity` (normalized), merged with the stored one by `strategy`, and returns its key.
    ///
    /// Generated `save(to:options:)` calls this first, then saves each relation.
    /// O(1) amortized, plus the cost of the merge.
    @discardableResult
    public mutating func upsert<Entity: EntityModelProtocol>(_ entity: Entity, options strategy: MergeStrategy<Entity>) -> EntityKey<Entity> {
        let table = table(Entity.self)
        let key = table.intern(entity.id)
        let old = table.rows[Int(key)]
        var new = entity
        new.normalize()
        if let old, !strategy.isReplace {
            new = strategy.merge(old, new)
            new.normalize()
        }
        table.rows[Int(key)] = new
        if old == nil { table.rowCount += 1 }
        record(.row({ context in context.restoreRow(Entity.self, key, old) }))
        return EntityKey(key)
    }

    /// Removes the row stored under `key`, keeping its links (generated `delete` detaches them).
    /// Returns whether a row was removed. O(1).
    @discardableResult
    public mutating func removeRow<Entity: EntityModelProtocol>(_ key: EntityKey<Entity>) -> Bool {
        guard hasRow(Entity.self, key.rawValue) else { return false }
        let writable = table(Entity.self)
        let old = writable.rows[Int(key.rawValue)]
        writable.rows[Int(key.rawValue)] = nil
        writable.rowCount -= 1
        record(.row({ context in context.restoreRow(Entity.self, key.rawValue, old) }))
        return true
    }

    /// Puts back a row value during rollback.
    mutating func restoreRow<Entity: EntityModelProtocol>(_ type: Entity.Type, _ key: Int32, _ value: Entity?) {
        let table = table(type)
        let wasStored = table.rows[Int(key)] != nil
        table.rows[Int(key)] = value
        table.rowCount += (value != nil ? 1 : 0) - (wasStored ? 1 : 0)
    }

    /// The key of the stored entity with `id`, or nil if no such entity is stored.
    public func storedKey<Entity: EntityModelProtocol>(of id: Entity.ID, _ type: Entity.Type = Entity.self) -> EntityKey<Entity>? {
        guard let key = key(of: id, type), hasRow(type, key) else { return nil }
        return EntityKey(key)
    }
}

/// A typed handle on an entity's slot in a ``Context``, returned by
/// ``Context/upsert(_:options:)`` and used by generated code to save and delete relations.
public struct EntityKey<Entity: EntityModelProtocol>: Hashable, Sendable {
    let rawValue: Int32
    init(_ rawValue: Int32) { self.rawValue = rawValue }
}
