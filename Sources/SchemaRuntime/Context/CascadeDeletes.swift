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

    public init() {}

    /// Queues the entities of `type` stored under `keys`.
    @inlinable
    mutating func append<Entity: EntityModelProtocol>(_ type: Entity.Type, keys: [Int32]) {
        for key in keys {
            steps.append { context, cascade in
                if let entity = context.row(Entity.self, key) { try entity.delete(from: &context, cascade: &cascade) }
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
            try entity.delete(from: &context, cascade: &first)
            try context.run(first)
        }
    }

    /// Runs queued deletes, and the deletes they queue in turn, with an explicit stack.
    @inlinable
    mutating func run(_ cascade: CascadeDeletes) throws {
        var stack = Array(cascade.steps.reversed())
        while let step = stack.popLast() {
            var next = CascadeDeletes()
            try step(&self, &next)
            stack.append(contentsOf: next.steps.reversed())
        }
    }
}
