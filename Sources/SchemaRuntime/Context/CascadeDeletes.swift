/// Deletes that `onDelete: cascade` rules queued while an entity was being deleted.
///
/// Generated `delete(from:cascade:)` removes one entity and appends the entities its cascade
/// rules reach here instead of deleting them itself; ``Context/deleteCascading(_:)`` runs
/// the queue with an explicit stack. A chain of a million cascading links therefore costs
/// no stack depth, where a recursive delete would overflow the stack.
///
/// Order is depth-first and follows the schema: an entity's delete (with its `didDelete`)
/// completes, then the entities it cascades to are deleted in relation order and link order,
/// each one with everything it cascades to before the next.
public struct CascadeDeletes: Sendable {
    public typealias Step = @Sendable (inout Context, inout CascadeDeletes) throws -> Void

    @usableFromInline var steps: [Step] = []
    /// The entities of this delete already archived (`metadata softDelete`), with the links
    /// they had before the delete began: a later step does not archive them again.
    @usableFromInline var archived: Set<ArchivedKey> = []

    public init() {}

    /// An entity by table and key.
    @usableFromInline
    struct ArchivedKey: Hashable, Sendable {
        @usableFromInline let table: ObjectIdentifier
        @usableFromInline let key: Int32

        @usableFromInline
        init(_ table: ObjectIdentifier, _ key: Int32) {
            self.table = table
            self.key = key
        }
    }

    /// Queues the entities of `type` stored under `keys`.
    @inlinable
    mutating func append<Entity: EntityModelProtocol>(_ type: Entity.Type, keys: [Int32]) {
        for key in keys {
            steps.append { context, cascade in
                context.faultEntities(ObjectIdentifier(Entity.self), [key])
                if let entity = context.row(Entity.self, key) {
                    try context.archiveBeforeDeleting(Entity.self, key: key, archived: &cascade.archived)
                    try entity.delete(from: &context, cascade: &cascade)
                }
            }
        }
    }
}

extension Context {
    /// Deletes `entity` and everything its cascade rules reach, in one transaction.
    @inlinable
    public mutating func deleteCascading<Entity: EntityModelProtocol>(_ entity: Entity) throws {
        try transaction { context in
            var first = CascadeDeletes()
            context.faultEntity(id: entity.id, Entity.self)
            if let key = context.key(of: entity.id, Entity.self), context.hasRow(Entity.self, key) {
                try context.archiveBeforeDeleting(Entity.self, key: key, archived: &first.archived)
            }
            try entity.delete(from: &context, cascade: &first)
            try context.run(first)
        }
    }

    /// Before an entity is deleted: archives it (`metadata softDelete`) and everything its
    /// cascade rules will delete, while all of them still hold their links, so restoring them
    /// relinks them to each other. Each entity is archived once per delete (`archived`).
    /// Iterative, like the cascade itself. O(entities the cascade reaches and their links).
    @inlinable
    mutating func archiveBeforeDeleting<Entity: EntityModelProtocol>(_ type: Entity.Type, key: Int32, archived: inout Set<CascadeDeletes.ArchivedKey>) throws {
        guard tableIfPresent(Entity.self)?.archivesOnDelete == true else { return }
        try archiveTree(Entity.self, key: key, archived: &archived)
    }

    /// Archives the entity at `key` and, through cascade relations, what they reach.
    @usableFromInline
    mutating func archiveTree<Entity: EntityModelProtocol>(_ type: Entity.Type, key: Int32, archived: inout Set<CascadeDeletes.ArchivedKey>) throws {
        var work = ArchiveWork(archived: archived)
        work.steps.append { context, work in try context.archiveOne(Entity.self, key: key, work: &work) }
        while let step = work.steps.popLast() { try step(&self, &work) }
        archived = work.archived
    }

    /// The archiving still to do within one delete, and what it has archived.
    @usableFromInline
    struct ArchiveWork {
        @usableFromInline var archived: Set<CascadeDeletes.ArchivedKey>
        @usableFromInline var steps: [(inout Context, inout ArchiveWork) throws -> Void] = []

        @usableFromInline
        init(archived: Set<CascadeDeletes.ArchivedKey>) {
            self.archived = archived
        }
    }

    @usableFromInline
    mutating func archiveOne<Entity: EntityModelProtocol>(_ type: Entity.Type, key: Int32, work: inout ArchiveWork) throws {
        faultEntities(ObjectIdentifier(Entity.self), [key])
        guard work.archived.insert(.init(ObjectIdentifier(Entity.self), key)).inserted, let entity = row(Entity.self, key) else { return }
        if Entity.keepsDeletedArchives, let archive = entity.asDeleted(in: self) { _ = try upsert(archive, options: .replace) }
        for relation in Entity.relations where relation.deleteRule == .cascade {
            // Writing on demand: the targets are read before deciding which are stored.
            faultSlot(ObjectIdentifier(Entity.self), relation.slot, key)
            if faulter != nil { faultEntities(relation.targetTable, targetKeys(ObjectIdentifier(Entity.self), relation.slot, of: key)) }
            relation.queueArchives(self, key, &work)
        }
    }

    /// Whether deleting an `Entity` can archive anything: it or a type its cascades reach keeps archives.
    @usableFromInline
    static func archivesDeletes<Entity: EntityModelProtocol>(reachableFrom type: Entity.Type) -> Bool {
        var seen: Set<ObjectIdentifier> = []
        var types: [any EntityModelProtocol.Type] = [type]
        while let next = types.popLast() {
            guard seen.insert(ObjectIdentifier(next)).inserted else { continue }
            if next.keepsDeletedArchives { return true }
            types.append(contentsOf: cascadeTargets(next))
        }
        return false
    }

    private static func cascadeTargets<Source: EntityModelProtocol>(_ type: Source.Type) -> [any EntityModelProtocol.Type] {
        Source.relations.filter { $0.deleteRule == .cascade }.map(\.target)
    }

    /// Runs queued deletes, and the deletes they queue in turn, with an explicit stack.
    @inlinable
    mutating func run(_ cascade: CascadeDeletes) throws {
        var stack = Array(cascade.steps.reversed())
        var archived = cascade.archived
        while let step = stack.popLast() {
            var next = CascadeDeletes()
            next.archived = archived
            try step(&self, &next)
            archived = next.archived
            stack.append(contentsOf: next.steps.reversed())
        }
    }
}
