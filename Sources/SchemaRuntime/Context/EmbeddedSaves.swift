/// Saving the entities embedded in relations (`.relation`, `.fragment`) at any depth.
///
/// Generated `save` saves each embedded entity by calling that entity's `save`, one level of
/// recursion per level of embedding: fast, and all that the shallow graphs apps embed need.
/// From ``Context/recursiveEmbeddingLimit`` levels down, the rest of the graph is saved by a
/// loop over an explicit stack of ``SaveStep``s instead, in exactly the same order, so a
/// chain of any depth saves in bounded stack space (a recursive save overflowed the stack at
/// about 5,000 levels in debug builds).
///
/// The order, on both paths: an entity's `willSave` and row; then, for each relation in
/// schema order, every entity embedded in it saved completely (its own relations and
/// `didSave` included), in list order, before the relation links them; then `didSave`.
extension Context {
    /// How many levels of embedded entities are saved by recursion before the explicit stack
    /// takes over. Small enough for any thread's stack, deep enough that no realistic payload
    /// pays for the step allocations.
    @usableFromInline static let recursiveEmbeddingLimit = 64

    /// Saves an entity embedded in a relation: by recursion near the top of the graph, with
    /// the explicit stack below ``recursiveEmbeddingLimit`` levels.
    @inlinable
    mutating func saveEmbedded<Entity: EntityModelProtocol>(_ entity: Entity, options: MergeStrategy<Entity>) throws {
        guard embeddingDepth < Self.recursiveEmbeddingLimit else {
            try saveWithExplicitStack(entity, options: options)
            return
        }
        embeddingDepth += 1
        defer { embeddingDepth -= 1 }
        try entity.save(to: &self, options: options)
    }

    /// Saves `entity` and everything embedded in it as generated `save` would, without
    /// recursion. O(entities) steps; the stack holds the pending steps of every level.
    @usableFromInline
    mutating func saveWithExplicitStack<Entity: EntityModelProtocol>(_ entity: Entity, options: MergeStrategy<Entity>) throws {
        var steps = [SaveStep.start(entity, options: options)]
        while let step = steps.popLast() { try step.run(&self, &steps) }
    }
}

/// One step of ``Context/saveWithExplicitStack(_:options:)``; it may push the steps that
/// follow it (the last pushed runs first).
@usableFromInline
struct SaveStep: Sendable {
    let run: @Sendable (inout Context, inout [SaveStep]) throws -> Void

    /// `willSave` and the row, then the relations.
    static func start<Entity: EntityModelProtocol>(_ entity: Entity, options: MergeStrategy<Entity>) -> SaveStep {
        SaveStep { context, steps in
            var entity = entity
            try entity.willSave(to: &context)
            let key = try context.upsert(entity, options: options)
            steps.append(.relation(entity, key, 0))
        }
    }

    /// Relation `index`: its embedded entities first, then the link; after the last, `didSave`.
    static func relation<Entity: EntityModelProtocol>(_ entity: Entity, _ key: EntityKey<Entity>, _ index: Int) -> SaveStep {
        SaveStep { context, steps in
            let relations = Entity.relations
            guard index < relations.count else {
                try entity.didSave(to: &context)
                return
            }
            steps.append(SaveStep { context, steps in
                relations[index].link(entity, key, &context)
                steps.append(.relation(entity, key, index + 1))
            })
            steps.append(contentsOf: relations[index].embeddedSaves(entity).reversed())
        }
    }
}
