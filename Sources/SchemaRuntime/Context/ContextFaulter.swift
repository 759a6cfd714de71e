/// Where a store's write context reads the stored state it has not read yet: a write on a
/// store reading on demand runs on a context that starts empty and reads, through SQL, each
/// entity and link list the first time a save, delete or link touches it.
///
/// The context calls the faulter before it reads anything of an entity it has not read:
/// its row and to-one links (``loadEntities(_:keys:into:)``), or one to-many list
/// (``loadLists(_:slot:keys:into:)``). What the faulter loads is the stored state before
/// the write, which is also the state of everything the write has not touched, so loading it
/// late changes nothing the write sees. Loads are not journaled: a rolled-back save leaves
/// them, as they were true before it. The context interns every id without journaling while
/// it faults, and forgets no id, so rollback never renumbers what a fault loaded.
///
/// Queries, `find` and counts in the write's closure read through the write context's
/// ``ContextReader``, which answers from the stored state and the write's own changes.
public protocol ContextFaulter: AnyObject, Sendable {
    /// Loads the stored rows and to-one links of `keys` (of `table`, interned in `context`).
    func loadEntities(_ table: ObjectIdentifier, keys: [Int32], into context: inout Context)
    /// Loads the stored links of the to-many `slot` of `keys`, whole and in order.
    func loadLists(_ table: ObjectIdentifier, slot: LinkSlot, keys: [Int32], into context: inout Context)
    /// Interns the ids of the stored entities that may hold one of `entity`'s unique index
    /// keys (every one that does, maybe more) and returns their keys.
    func uniqueHolders<Entity: EntityModelProtocol>(of entity: Entity, into context: inout Context) -> [Int32]
}

/// What a faulting context has read: per table, the keys whose row and to-one links were
/// loaded, and the to-many lists that were.
@usableFromInline
struct FaultState: Sendable {
    @usableFromInline var entities: [ObjectIdentifier: Set<Int32>] = [:]
    @usableFromInline var lists: [ObjectIdentifier: Set<ListKey>] = [:]

    @usableFromInline
    struct ListKey: Hashable, Sendable {
        @usableFromInline let column: Int
        @usableFromInline let key: Int32

        @usableFromInline
        init(column: Int, key: Int32) {
            self.column = column
            self.key = key
        }
    }

    @usableFromInline init() {}
}

extension Context {
    /// A write context over a store reading on demand: empty, reading what writes touch
    /// through `faulter` and what queries read through `reader`.
    @_spi(SchemaStore)
    public init(faulter: any ContextFaulter, reader: any ContextReader) {
        self.init()
        self.faulter = faulter
        self.reader = reader
        keepsOnlyUniqueIndexes = true
        holdsFewRows = true
    }

    /// The same context, reading nothing more: for running a query on what was loaded.
    @_spi(SchemaStore)
    public func detachedFromStore() -> Context {
        var copy = self
        copy.faulter = nil
        copy.reader = nil
        copy.journal = nil
        return copy
    }

    /// Loads the rows and to-one links of those `keys` not loaded yet. O(1) without a faulter.
    @inlinable
    mutating func faultEntities(_ table: ObjectIdentifier, _ keys: [Int32]) {
        guard faulter != nil else { return }
        loadFaulted(table, keys)
    }

    /// Loads the to-many `slot` of those `keys` not loaded yet. O(1) without a faulter.
    @inlinable
    mutating func faultLists(_ table: ObjectIdentifier, _ slot: LinkSlot, _ keys: [Int32]) {
        guard faulter != nil else { return }
        loadFaultedLists(table, slot, keys)
    }

    /// ``faultEntities(_:_:)`` for a store's reader: the rows and to-one links of `keys`.
    @_spi(SchemaStore)
    public mutating func readEntities(_ table: ObjectIdentifier, _ keys: [Int32]) {
        faultEntities(table, keys)
    }

    /// ``faultLists(_:_:_:)`` for a store's reader: the to-many `slot` of `keys`.
    @_spi(SchemaStore)
    public mutating func readLists(_ table: ObjectIdentifier, _ slot: LinkSlot, _ keys: [Int32]) {
        faultLists(table, slot, keys)
    }

    /// Loads the row and to-one links of `key`, or the to-many list, as `slot` needs.
    @inlinable
    mutating func faultSlot(_ table: ObjectIdentifier, _ slot: LinkSlot, _ key: Int32) {
        guard faulter != nil, key >= 0 else { return }
        switch slot.cardinality {
        case .toOne: loadFaulted(table, [key])
        case .toMany: loadFaultedLists(table, slot, [key])
        }
    }

    /// The key of `id` with its row and to-one links loaded; nil without a faulter (then
    /// nothing is interned).
    @inlinable @discardableResult
    mutating func faultEntity<Entity: EntityModelProtocol>(id: Entity.ID, _ type: Entity.Type) -> Int32? {
        guard faulter != nil else { return nil }
        let key = intern(id, type)
        loadFaulted(ObjectIdentifier(type), [key])
        return key
    }

    /// Loads the rows and to-one links of the entities `ids` at once, before saving them one
    /// by one (each save would otherwise read its own). O(1) without a faulter.
    @inlinable
    mutating func faultEntities<Entity: EntityModelProtocol>(ids: [Entity.ID], _ type: Entity.Type) {
        guard faulter != nil, ids.count > 1 else { return }
        loadFaulted(ObjectIdentifier(type), ids.map { intern($0, type) })
    }

    /// Loads the stored entities that may hold `entity`'s unique index keys.
    @usableFromInline
    mutating func faultUniqueHolders<Entity: EntityModelProtocol>(of entity: Entity) {
        guard let faulter, Entity.indexes.contains(where: { $0.isUnique }) else { return }
        let keys = withoutJournal { context in faulter.uniqueHolders(of: entity, into: &context) }
        loadFaulted(ObjectIdentifier(Entity.self), keys)
    }

    @usableFromInline
    mutating func loadFaulted(_ table: ObjectIdentifier, _ keys: [Int32]) {
        guard let faulter else { return }
        var pending: [Int32] = []
        for key in keys where key >= 0 && faults.entities[table, default: []].insert(key).inserted { pending.append(key) }
        guard !pending.isEmpty else { return }
        withoutJournal { context in faulter.loadEntities(table, keys: pending, into: &context) }
    }

    /// Loads the to-many `slot` of those `keys` not loaded yet. A list the write appended to
    /// without reading it (``appendsWithoutReading(_:)``) holds only those appends: they
    /// follow the stored links, as they will in the file.
    @usableFromInline
    mutating func loadFaultedLists(_ table: ObjectIdentifier, _ slot: LinkSlot, _ keys: [Int32]) {
        guard let faulter else { return }
        var pending: [Int32] = []
        for key in keys where key >= 0 && faults.lists[table, default: []].insert(.init(column: slot.column, key: key)).inserted {
            pending.append(key)
        }
        guard !pending.isEmpty else { return }
        let appended = pending.map { storageIfPresent(table)?.toManyLinks(slot.column, $0).keys ?? [] }
        withoutJournal { context in
            faulter.loadLists(table, slot: slot, keys: pending, into: &context)
            guard appended.contains(where: { !$0.isEmpty }), let target = context.storageIfPresent(table)?.targetTable(of: slot) else { return }
            // Not journaled: the appends' own journal entries undo them from the end.
            for (key, values) in zip(pending, appended) {
                for value in values { context.appendToMany(table, slot.column, key, value, target: target) }
            }
        }
    }

    /// Whether a link to the to-many `slot` of `key` can be appended without reading the
    /// list: the caller knows the stored list does not hold it (the other side of a mutual
    /// pair says so), and the list, unread, holds only this write's appends.
    @inlinable
    func appendsWithoutReading(_ slot: LinkSlot) -> Bool {
        faulter != nil && slot.cardinality == .toMany
    }

    /// Runs `body` with neither journal nor faulter: what it loads is the state before the
    /// transaction, never undone, and loading faults nothing more.
    @usableFromInline
    mutating func withoutJournal<Result>(_ body: (inout Context) -> Result) -> Result {
        let journal = self.journal.take()
        let faulter = self.faulter.take()
        defer {
            self.journal = journal
            self.faulter = faulter
        }
        return body(&self)
    }
}

extension IndexDescriptor {
    /// Whether this is a unique index.
    @usableFromInline
    var isUnique: Bool { if case .unique = kind { true } else { false } }
}
