import Foundation

/// What every table of one entity type derives from the schema alone: its link columns and
/// whether deleting one of its entities can archive anything. Worked out once per type and
/// process (``of(_:)``): a write on demand starts from an empty context and so makes its
/// tables anew each time, and walking the relations reachable by cascade (each
/// `Entity.relations` builds its array afresh) took a tenth of such a write's client time.
@usableFromInline
struct EntityTableShape: Sendable {
    let toOneColumns: Int
    let toManyColumns: Int
    let requiredToOne: Set<Int>
    let archivesOnDelete: Bool

    private static let lock = NSLock()
    nonisolated(unsafe) private static var shapes: [ObjectIdentifier: EntityTableShape] = [:]

    /// `Entity`'s shape, computed on first use. O(1) after that (a dictionary lookup under a lock).
    @usableFromInline
    static func of<Entity: EntityModelProtocol>(_ type: Entity.Type) -> EntityTableShape {
        let id = ObjectIdentifier(type)
        if let shape = lock.withLock({ shapes[id] }) { return shape }
        // Computed outside the lock: the schema is fixed, so two threads racing here compute
        // the same value.
        let shape = EntityTableShape(computing: type)
        lock.withLock { shapes[id] = shape }
        return shape
    }

    private init<Entity: EntityModelProtocol>(computing type: Entity.Type) {
        var toOne = 0, toMany = 0
        var required: Set<Int> = []
        for relation in Entity.relations {
            switch relation.slot.cardinality {
            case .toOne: toOne = max(toOne, relation.slot.column + 1)
            case .toMany: toMany = max(toMany, relation.slot.column + 1)
            }
            if relation.isRequired { required.insert(relation.slot.column) }
        }
        toOneColumns = toOne
        toManyColumns = toMany
        requiredToOne = required
        archivesOnDelete = Context.archivesDeletes(reachableFrom: type)
    }
}
