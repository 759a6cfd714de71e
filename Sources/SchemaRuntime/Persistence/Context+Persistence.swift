/// Low-level access for a store (SchemaStore): rows and links by interned key, and loading a
/// graph without journaling or symmetric link maintenance (a store loads each stored link
/// slot as it was saved). Not for application code: every write here bypasses the checks
/// that saves and deletes make.
@_spi(SchemaStore)
extension Context {
    // MARK: Reading by key

    /// The stored entity under `key`, or nil.
    public func storedRow<Entity: EntityModelProtocol>(_ type: Entity.Type, key: Int32) -> Entity? {
        row(type, key)
    }

    /// The schema name of the entity type whose table is `table`, if the context has one.
    public func entityName(of table: ObjectIdentifier) -> String? {
        storageIfPresent(table)?.entityName
    }

    /// The key `id` is interned as, if the context has seen it.
    public func internedKey<Entity: EntityModelProtocol>(of id: Entity.ID, _ type: Entity.Type) -> Int32? {
        key(of: id, type)
    }

    /// The number of keys interned for `type` (stored, linked only, or forgotten).
    public func internedCount<Entity: EntityModelProtocol>(of type: Entity.Type) -> Int {
        tableIfPresent(type)?.keyCount ?? 0
    }

    /// The id interned as `key` (also for keys whose id was forgotten since).
    public func storedID<Entity: EntityModelProtocol>(_ type: Entity.Type, key: Int32) -> Entity.ID {
        id(type, key)
    }

    /// The recorded save time of `key` (`metadata updatedAt`), seconds since 2001-01-01.
    public func savedAt<Entity: EntityModelProtocol>(_ type: Entity.Type, key: Int32) -> Double? {
        tableIfPresent(type)?.savedAt(key)
    }

    /// The key a to-one slot of `key` links to, or -1.
    public func linkedKey(_ table: ObjectIdentifier, _ slot: LinkSlot, of key: Int32) -> Int32 {
        storageIfPresent(table)?.toOneLink(slot.column, key) ?? -1
    }

    /// The keys a to-many slot of `key` links to, in order. O(n).
    public func linkedKeys(_ table: ObjectIdentifier, _ slot: LinkSlot, of key: Int32) -> ContiguousArray<Int32> {
        storageIfPresent(table)?.toManyLinks(slot.column, key).keys ?? []
    }

    /// The keys a link slot of `key` holds, in order, whatever its cardinality: none, one
    /// (to-one) or the list (to-many). Stored targets or not.
    public func targetKeys(_ table: ObjectIdentifier, _ slot: LinkSlot, of key: Int32) -> [Int32] {
        switch slot.cardinality {
        case .toMany: return Array(linkedKeys(table, slot, of: key))
        case .toOne:
            let target = linkedKey(table, slot, of: key)
            return target >= 0 ? [target] : []
        }
    }

    /// The number of keys a to-many slot of `key` links to. O(1).
    public func linkCount(_ table: ObjectIdentifier, _ slot: LinkSlot, of key: Int32) -> Int {
        storageIfPresent(table)?.toManyLinks(slot.column, key).count ?? 0
    }

    /// The last `count` keys of a to-many slot of `key`, in order: O(count) plus the
    /// removals not yet compacted at the end of the list, whatever its length.
    public func lastLinkedKeys(_ table: ObjectIdentifier, _ slot: LinkSlot, of key: Int32, count: Int) -> [Int32] {
        storageIfPresent(table)?.toManyLinks(slot.column, key).lastKeys(count) ?? []
    }

    /// Whether a to-many slot of `key` links to `target`. O(1) for long lists.
    public func links(_ table: ObjectIdentifier, _ slot: LinkSlot, of key: Int32, to target: Int32) -> Bool {
        storageIfPresent(table)?.toManyLinks(slot.column, key).contains(target) ?? false
    }

    /// `entity` with the id links to entities this context does not store dropped (relations
    /// held as ids; others are left as they are). Links of the entity to itself are kept.
    public func keepingStoredTargets<Entity: EntityModelProtocol>(_ entity: Entity) -> Entity {
        var kept = entity
        for relation in Entity.relations { relation.keepStoredTargets(&kept, self, false) }
        return kept
    }

    /// Whether `id` has a row of `Target`, or is `entity` itself (a link of an entity to
    /// itself is kept while that entity is being saved back).
    func isStoredOrSelf<Source: EntityModelProtocol, Target: EntityModelProtocol>(_ id: Target.ID, _ type: Target.Type,
                                                                                 restoring entity: Source) -> Bool {
        // A write reading on demand asks its reader (the stored state and the write's changes).
        if let holding = holding(id, Target.self) { return holding.isStoredOrSelf(id, Target.self, restoring: entity) }
        if storedKey(of: id, Target.self) != nil { return true }
        return Source.self == Target.self && (id as? Source.ID) == entity.id
    }

    /// The entity stored under `key` with every relation set to the ids it links to, whether
    /// or not they are stored (a one-way link to an id without a row is valid data; a mutual
    /// one is a link the target inherits when it is saved). Nil when `key` holds no row.
    func entityWithEveryLink<Entity: EntityModelProtocol>(_ type: Entity.Type, key: Int32) -> Entity? {
        guard var entity = row(Entity.self, key) else { return nil }
        for relation in Entity.relations { relation.linkAllIDs(&entity, key, self) }
        return entity
    }

    // MARK: Loading

    /// The key of `id`, interned if new.
    public mutating func loadKey<Entity: EntityModelProtocol>(_ id: Entity.ID, _ type: Entity.Type) -> Int32 {
        intern(id, type)
    }

    /// Stores a loaded entity (normalized) with its save time, keeping indexes in step.
    /// Throws if it collides in a unique index. Outside a transaction: nothing is journaled.
    /// Returns the entity's key.
    @discardableResult
    public mutating func loadRow<Entity: EntityModelProtocol>(_ entity: Entity, savedAt: Double?) throws -> Int32 {
        precondition(!isInTransaction, "loading runs outside transactions")
        // A collision here means a damaged file: report it rather than apply the index's
        // collision policy, which could delete the other row.
        let key = try upsert(entity, options: .replace, applyingCollisionPolicies: false)
        table(Entity.self).setSavedAt(key.rawValue, savedAt)
        return key.rawValue
    }

    /// Sets one to-one slot, without touching its inverse. Both ends must be interned.
    public mutating func loadLink(_ table: ObjectIdentifier, _ slot: LinkSlot, of key: Int32, to target: Int32, targetTable: ObjectIdentifier) {
        precondition(!isInTransaction, "loading runs outside transactions")
        writeToOne(table, slot.column, key, target, target: targetTable)
    }

    /// Sets one to-many slot, without touching its inverses. Both ends must be interned.
    public mutating func loadLinks(_ table: ObjectIdentifier, _ slot: LinkSlot, of key: Int32, to targets: [Int32], targetTable: ObjectIdentifier) {
        precondition(!isInTransaction, "loading runs outside transactions")
        replaceToMany(table, slot.column, key, LinkList(deduplicating: targets), target: targetTable)
    }

    // MARK: Layering (packs)

    /// Sets a link slot of `key` to `targets` (at most one for a to-one slot; none clears it),
    /// keeping the `inverse` slot of each target in step as a save would: a target leaving the
    /// slot loses its inverse link, a target joining it gains one (moved from any other owner
    /// of a to-one inverse). Both ends must be interned. Journaled inside a transaction.
    public mutating func setLinks(_ table: ObjectIdentifier, _ slot: LinkSlot, of key: Int32, to targets: [Int32],
                                  targetTable: ObjectIdentifier, inverse: LinkSlot?) {
        switch slot.cardinality {
        case .toOne:
            setToOne(table, slot.column, key, to: targets.first ?? -1, targetTable, inverse: inverse)
        case .toMany:
            setToMany(table, slot.column, key, to: targets, appending: false, targetTable, inverse: inverse)
        }
    }

    /// Appends `targets` to the to-many `slot` of `key` (those it does not hold yet), keeping
    /// the `inverse` slot of each in step as ``setLinks(_:_:of:to:targetTable:inverse:)``
    /// does. O(targets), however long the list. Both ends must be interned. Journaled inside
    /// a transaction.
    public mutating func appendLinks(_ table: ObjectIdentifier, _ slot: LinkSlot, of key: Int32, _ targets: [Int32],
                                     targetTable: ObjectIdentifier, inverse: LinkSlot?) {
        precondition(slot.cardinality == .toMany, "only a to-many slot is appended to")
        setToMany(table, slot.column, key, to: targets, appending: true, targetTable, inverse: inverse)
    }

    /// Stores `entity` (normalized) as another store committed it, with its save time,
    /// replacing the stored row and keeping indexes in step; a unique-index collision
    /// throws instead of applying the index's policy (the committed state has none, so one
    /// here means the rows arrived in an order that passes through one). Journaled.
    public mutating func refreshRow<Entity: EntityModelProtocol>(_ entity: Entity, savedAt: Double?) throws {
        let key = try upsert(entity, options: .replace, applyingCollisionPolicies: false)
        table(Entity.self).setSavedAt(key.rawValue, savedAt)
    }

    /// Removes the row under `key` (a pack entity the user deleted), leaving its links.
    public mutating func removeLoadedRow<Entity: EntityModelProtocol>(_ type: Entity.Type, key: Int32) {
        precondition(!isInTransaction, "loading runs outside transactions")
        removeRow(EntityKey<Entity>(key))
    }

    /// Stores `entity` (normalized) as it was in a pack, with its save time: a save that
    /// replaces the stored row, applying unique indexes' collision policies. Inside a
    /// transaction: undone with it if it throws.
    public mutating func restoreRow<Entity: EntityModelProtocol>(_ entity: Entity, savedAt: Double?) throws {
        let key = try upsert(entity, options: .replace)
        // The row write above recorded the save time it replaced, so rollback restores it.
        table(Entity.self).setSavedAt(key.rawValue, savedAt)
    }
}

extension Context {
    /// The keys of `ids`, each interned if new: ``loadKey(_:_:)`` for many ids, with one
    /// lookup of the table for all of them. O(ids).
    @inlinable
    mutating func loadKeys<Entity: EntityModelProtocol>(_ ids: [Entity.ID], _ type: Entity.Type) -> [Int32] {
        guard !ids.isEmpty else { return [] }
        let table = table(type)
        var keys: [Int32] = []
        keys.reserveCapacity(ids.count)
        for id in ids { keys.append(table.intern(id).key) }
        return keys
    }

    /// ``loadRow(_:savedAt:)`` for many rows (`savedAt` one per entity). In a context that
    /// keeps no indexes (one query's rows, read from a store) the table is looked up once,
    /// with no index to keep in step and no unique key to check. O(rows).
    @inlinable
    mutating func loadRows<Entity: EntityModelProtocol>(_ entities: [Entity], savedAt: [Double?]) throws -> [Int32] {
        guard !keepsIndexes else {
            // As `loadRow(_:savedAt:)`: a unique collision means a damaged file.
            return try zip(entities, savedAt).map { entity, time in
                let key = try upsert(entity, options: .replace, applyingCollisionPolicies: false).rawValue
                self.table(Entity.self).setSavedAt(key, time)
                return key
            }
        }
        guard !entities.isEmpty else { return [] }
        let table = table(Entity.self)
        var keys: [Int32] = []
        keys.reserveCapacity(entities.count)
        for (entity, time) in zip(entities, savedAt) {
            var new = entity
            new.normalize()
            let key = table.intern(entity.id).key
            let old = table.rows[Int(key)]
            table.rows[Int(key)] = new
            table.present[Int(key)] = true
            if old == nil { table.rowCount += 1 }
            table.updateIndexes(key: key, old: old, new: new)
            table.setSavedAt(key, time)
            keys.append(key)
        }
        return keys
    }
}
