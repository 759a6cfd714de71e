/// How a bulk nested query resolves the relations at one depth:
/// `.with(.entities, .fragments, .ids)` resolves direct relations as entities, theirs as
/// fragments, and the next level as ids only.
public enum Nested: Sendable, Hashable {
    /// Related entities, to be saved back with their default merge strategy.
    case entities
    /// Related entities marked as fragments, to be saved back with their fragment strategy.
    case fragments
    /// Only the ids of related entities.
    case ids
}

/// The shape of a nested query: the steps that fill the relations of each resolved entity.
///
/// A nested closure such as `.with(\.$messages) { $0.with(\.$author) }` is called once, on a
/// template query, to record its steps; the steps are then applied to every related entity.
/// Depth is bounded by the query's shape, so resolving terminates on cyclic graphs.
public struct Nesting<Entity: EntityModelProtocol> {
    @usableFromInline typealias Step = (inout Entity, Int32, Context) -> Void

    @usableFromInline var steps: [Step] = []
    /// The tables the steps read, besides the resolved entity's own row and link slots: the
    /// related entities' tables, at every depth (what a live query watches, ``QueryReach``).
    @usableFromInline var reachedTables: Set<ObjectIdentifier> = []
    /// The relations the steps follow, for a store reading on demand (``ReadReach``).
    @usableFromInline var reach = ReadReach()

    @usableFromInline init() {}

    /// Resolves every relation level by level, as `levels` says.
    @usableFromInline
    static func bulk(_ levels: ArraySlice<Nested>) -> Nesting {
        var nesting = Nesting()
        guard !levels.isEmpty else { return nesting }
        nesting.steps.append { entity, key, context in
            for relation in Entity.relations { relation.resolveBulk(&entity, key, context, levels) }
        }
        nesting.reachedTables = tables(reachedFrom: Entity.self, depth: levels.count)
        nesting.reach = ReadReach.allRelations(of: Entity.self, depth: levels.count)
        return nesting
    }

    /// The tables of the entities related to `type` within `depth` relation steps.
    private static func tables(reachedFrom type: any EntityModelProtocol.Type, depth: Int) -> Set<ObjectIdentifier> {
        func targets<Source: EntityModelProtocol>(_: Source.Type) -> [any EntityModelProtocol.Type] { Source.relations.map(\.target) }
        var reached: Set<ObjectIdentifier> = []
        var level: [any EntityModelProtocol.Type] = [type]
        for _ in 0..<depth {
            var next: [any EntityModelProtocol.Type] = []
            for source in level {
                for target in targets(source) where reached.insert(ObjectIdentifier(target)).inserted { next.append(target) }
            }
            level = next
        }
        return reached
    }
}

extension Context {
    /// The stored entity at `key` with `nesting` applied, or nil if none is stored.
    @inlinable
    func resolve<Entity: EntityModelProtocol>(_ type: Entity.Type, key: Int32, nesting: Nesting<Entity>) -> Entity? {
        guard var entity = row(type, key) else { return nil }
        for step in nesting.steps { step(&entity, key, self) }
        return entity
    }

    /// The stored targets of a to-many slot, skipping links to entities that are not stored.
    @inlinable
    func liveTargets<Target: EntityModelProtocol>(_ source: ObjectIdentifier, _ column: Int, _ key: Int32, _ target: Target.Type) -> [Int32] {
        guard let storage = storageIfPresent(source) else { return [] }
        return storage.toManyLinks(column, key).keys.filter { hasRow(target, $0) }
    }

    /// The stored target of a to-one slot, or nil when unlinked or not stored.
    @inlinable
    func liveTarget<Target: EntityModelProtocol>(_ source: ObjectIdentifier, _ column: Int, _ key: Int32, _ target: Target.Type) -> Int32? {
        guard let link = storageIfPresent(source)?.toOneLink(column, key), link >= 0, hasRow(target, link) else { return nil }
        return link
    }
}
