import Foundation

/// A soft-deleted entity: the entity as it was, with its links, kept in its own table so it
/// can be listed and restored.
///
/// ```swift
/// if let archived = message.asDeleted(in: context) {
///     try archived.save(to: &context)          // removes the message, keeps the archive
/// }
/// let trash = Deleted<Message>.query(in: context).resolve()
/// try trash[0].restore(in: &context)           // saves the message back, relinked
/// ```
///
/// Saving a `Deleted` deletes the original with its delete rules (a cascade still deletes
/// related entities for good). Restoring is saving the archived entity back, with the links it
/// had as ids: one-way links all come back (a one-way link to an id without a row is as valid
/// as when it was saved), links to itself come back, and mutual links come back to entities
/// that are stored; mutual links to entities deleted since do not, so a new entity saved later
/// under such an id does not inherit a link it never had.
public struct Deleted<Entity: EntityModelProtocol>: EntityModelProtocol {
    /// The archived entity, with every relation as the ids it was linked to.
    public let entity: Entity
    /// When the entity was archived.
    public let deletedAt: Date

    public var id: Entity.ID { entity.id }

    public init(_ entity: Entity, deletedAt: Date = Date()) {
        self.entity = entity
        self.deletedAt = deletedAt
    }

    public static var entityName: String { "Deleted<\(Entity.entityName)>" }
    public static var relations: [AnyRelation<Deleted>] { [] }
    public static var defaultMergeStrategy: MergeStrategy<Deleted> { .replace }
    public static var fragmentMergeStrategy: MergeStrategy<Deleted> { .replace }
    public static var patch: MergeStrategy<Deleted> { .replace }

    /// Keeps the archived entity's relation ids: they are what `restore(in:)` relinks.
    public mutating func normalize() {}

    /// Archives the entity: deletes the original (with its delete rules) and stores this.
    public func save(to context: inout Context, options: MergeStrategy<Deleted>) throws {
        try context.transaction { context in
            var archived = self
            try archived.willSave(to: &context)
            if let stored = context.find(Entity.self, id: id) { try stored.delete(from: &context) }
            try context.upsert(archived, options: options)
            try archived.didSave(to: &context)
        }
    }

    /// Removes the archive (the entity stays deleted). Archives have no relations, so
    /// nothing cascades.
    public func delete(from context: inout Context, cascade: inout CascadeDeletes) throws {
        guard let key = context.storedKey(of: id, Deleted.self) else { return }
        try willDelete(from: &context)
        context.removeRow(key)
        try didDelete(from: &context)
    }

    /// Saves the entity back with the links it had and removes the archive, in one transaction:
    /// the same as saving the archived entity, except that mutual links to entities that are
    /// not stored (deleted since) are dropped. Throws, changing nothing, when that save would
    /// (a required relation left empty, a unique index collision).
    public func restore(in context: inout Context) throws {
        try context.transaction { context in
            var restored = entity
            for relation in Entity.relations { relation.keepStoredTargets(&restored, context, true) }
            try restored.save(to: &context)
            // A required relation whose target was deleted since is empty now. The write
            // would throw at its end (required links are checked then); the restore throws
            // here instead, so that a caller can catch it and go on.
            if let violation = context.requiredLinkViolation(of: id, Entity.self) { throw violation }
            try delete(from: &context)
        }
    }
}

extension Deleted: Codable where Entity: Codable {}
extension Deleted: Equatable where Entity: Equatable {}

extension EntityModelProtocol {
    /// The stored entity, with all its relations as the ids it links to (stored or not), ready
    /// to be archived by saving it; nil if the entity is not stored.
    public func asDeleted(in context: Context) -> Deleted<Self>? {
        if let holding = context.holdingWithEveryLink(id, Self.self) { return asDeleted(in: holding) }
        guard let key = context.storedKey(of: id, Self.self),
              let stored = context.entityWithEveryLink(Self.self, key: key.rawValue) else { return nil }
        return Deleted(stored)
    }
}
