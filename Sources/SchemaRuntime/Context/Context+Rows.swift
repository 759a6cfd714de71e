import Foundation

extension Context {
    /// Stores `entity` (normalized), merged with the stored one by `strategy`, and returns its key.
    ///
    /// Unique indexes are checked first: a collision throws, replaces the other entity, or runs
    /// the schema's resolver, as the index says. Generated `save(to:options:)` calls this
    /// first, then saves each relation. O(1) amortized plus index maintenance and the merge.
    @inlinable @discardableResult
    public mutating func upsert<Entity: EntityModelProtocol>(_ entity: Entity, options strategy: MergeStrategy<Entity>) throws -> EntityKey<Entity> {
        try upsert(entity, options: strategy, applyingCollisionPolicies: true)
    }

    /// ``upsert(_:options:)``; without `applyingCollisionPolicies` every unique collision
    /// throws, whatever the index's policy (loading a store: a collision means a damaged file).
    @inlinable @discardableResult
    mutating func upsert<Entity: EntityModelProtocol>(_ entity: Entity, options strategy: MergeStrategy<Entity>,
                                                      applyingCollisionPolicies: Bool) throws -> EntityKey<Entity> {
        var new = entity
        new.normalize()
        // Writing on demand: the stored row (to merge with) and its links are read first.
        faultEntity(id: entity.id, Entity.self)
        if !strategy.isReplace, let key = key(of: entity.id, Entity.self), let old = row(Entity.self, key) {
            new = strategy.merge(old, new)
            new.normalize()
        }
        try resolveUniqueCollisions(new, applyingPolicies: applyingCollisionPolicies)
        let table = table(Entity.self)
        let (key, isNew) = table.intern(entity.id, row: new)
        let old: Entity?
        if isNew {
            record(.interned(table: ObjectIdentifier(Entity.self)))
            old = nil
        } else {
            old = table.rows[Int(key)]
            table.rows[Int(key)] = new
            table.present[Int(key)] = true
        }
        if old == nil {
            table.rowCount += 1
            if table.hasRequiredToOne { checkRequiredLinks(ObjectIdentifier(Entity.self), key) }
        }
        table.updateIndexes(key: key, old: old, new: new)
        if journal != nil { table.recordRowWrite(key, old: old) }
        if table.tracksUpdatedAt { table.setSavedAt(key, Date().timeIntervalSinceReferenceDate) }
        record(.row(table: ObjectIdentifier(Entity.self), key: key, removed: false))
        return EntityKey(key)
    }

    /// Applies each unique index's collision policy for `entity` about to be stored, or
    /// without `applyingPolicies` throws on the first collision.
    @inlinable
    mutating func resolveUniqueCollisions<Entity: EntityModelProtocol>(_ entity: Entity, applyingPolicies: Bool) throws {
        // Writing on demand: the stored entities holding these keys are read first.
        faultUniqueHolders(of: entity)
        // The table's own indexes: a context holding one query's rows keeps none.
        for (position, descriptor) in (tableIfPresent(Entity.self)?.descriptors ?? Entity.indexes).enumerated() {
            guard case .unique(let policy) = descriptor.kind else { continue }
            let indexKey = descriptor.key(of: entity)
            if indexKey.containsNull { continue }
            func owner(_ context: Context) -> Int32? {
                guard let table = context.tableIfPresent(Entity.self) else { return nil }
                return table.unique[table.indexSlots[position]].otherHolder(of: indexKey, than: table.keyByID[entity.id])
            }
            guard let existing = owner(self) else { continue }
            let violation = UniqueConstraintViolation(entityName: Entity.entityName, indexName: descriptor.name,
                                                      existingID: "\(id(Entity.self, existing))", newID: "\(entity.id)")
            // A collision a resolver accepted when it was written is loaded as it is.
            if case .resolver(let resolver) = policy, resolver.acceptsCollisions, !applyingPolicies { continue }
            guard applyingPolicies else { throw violation }
            switch policy {
            case .throw:
                throw violation
            case .upsert:
                try row(Entity.self, existing)?.delete(from: &self)
            case .resolver(let resolver):
                try resolver.resolve(id(Entity.self, existing), entity, &self)
                if resolver.acceptsCollisions { continue }
            }
            if owner(self) != nil { throw violation }
        }
    }

    /// Removes the row stored under `key`, keeping its links (generated `delete` detaches them).
    /// Returns whether a row was removed. O(1) plus removing the row from each index.
    @inlinable @discardableResult
    public mutating func removeRow<Entity: EntityModelProtocol>(_ key: EntityKey<Entity>) -> Bool {
        guard hasRow(Entity.self, key.rawValue) else { return false }
        let writable = table(Entity.self)
        let old = writable.rows[Int(key.rawValue)]
        writable.rows[Int(key.rawValue)] = nil
        writable.present[Int(key.rawValue)] = false
        writable.rowCount -= 1
        writable.updateIndexes(key: key.rawValue, old: old, new: nil)
        if journal != nil { writable.recordRowWrite(key.rawValue, old: old) }
        writable.setSavedAt(key.rawValue, nil)
        record(.row(table: ObjectIdentifier(Entity.self), key: key.rawValue, removed: true))
        forgetIfUnused(ObjectIdentifier(Entity.self), key.rawValue)
        return true
    }

    /// When the entity with `id` was last saved, for entities whose schema declares
    /// `metadata updatedAt`; nil otherwise.
    public func updatedAt<Entity: EntityModelProtocol>(of type: Entity.Type, id: Entity.ID) -> Date? {
        if let context = holding(id, type) { return context.updatedAt(of: type, id: id) }
        guard let key = key(of: id, type), let time = tableIfPresent(type)?.savedAt(key) else { return nil }
        return Date(timeIntervalSinceReferenceDate: time)
    }

    /// The key of the stored entity with `id`, or nil if no such entity is stored.
    @inlinable
    public func storedKey<Entity: EntityModelProtocol>(of id: Entity.ID, _ type: Entity.Type = Entity.self) -> EntityKey<Entity>? {
        guard let key = key(of: id, type), hasRow(type, key) else { return nil }
        return EntityKey(key)
    }
}

/// A typed handle on an entity's slot in a ``Context``, returned by
/// ``Context/upsert(_:options:)`` and used by generated code to save and delete relations.
public struct EntityKey<Entity: EntityModelProtocol>: Hashable, Sendable {
    @usableFromInline let rawValue: Int32
    @inlinable init(_ rawValue: Int32) { self.rawValue = rawValue }
}
