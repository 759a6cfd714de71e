/// Custom handling of a unique-index collision, named in the schema
/// (`index unique(isCurrent, onCollision: updateCurrentUser)`) and written in Swift:
///
/// ```swift
/// extension CollisionResolver where Entity == User {
///     static var updateCurrentUser: Self {
///         CollisionResolver { existingID, newUser, context in
///             guard var current = context.find(User.self, id: existingID) else { return }
///             current.isCurrent = false
///             try current.save(to: &context)
///         }
///     }
/// }
/// ```
///
/// The resolver runs inside the save's transaction. If the collision remains afterwards, the
/// save throws ``UniqueConstraintViolation``, unless the resolver accepts collisions
/// (``init(acceptingCollisions:_:)``, and SwiftletModel's closure forms): then both entities
/// keep the key, and lookups by it find both. That is SwiftletModel's "only one current user"
/// with `isCurrent: Bool`: the resolver un-marks the previous current user, and any number of
/// users share `false`.
public struct CollisionResolver<Entity: EntityModelProtocol>: Sendable {
    public let resolve: @Sendable (_ existingID: Entity.ID, _ new: Entity, _ context: inout Context) throws -> Void
    /// Whether a collision the resolver leaves in place is kept instead of failing the save.
    public let acceptsCollisions: Bool

    /// A resolver after which a remaining collision fails the save.
    public init(_ resolve: @escaping @Sendable (_ existingID: Entity.ID, _ new: Entity, _ context: inout Context) throws -> Void) {
        self.resolve = resolve
        self.acceptsCollisions = false
    }

    /// A resolver that, with `acceptingCollisions`, keeps a collision it leaves in place.
    public init(acceptingCollisions: Bool, _ resolve: @escaping @Sendable (_ existingID: Entity.ID, _ new: Entity, _ context: inout Context) throws -> Void) {
        self.resolve = resolve
        self.acceptsCollisions = acceptingCollisions
    }

    /// SwiftletModel's four-argument form, `CollisionResolver { existingId, _, _, context in ... }`:
    /// the id holding the key, the id of the entity being saved, the entity, and the context.
    /// As in SwiftletModel, a collision the resolver leaves in place is accepted.
    public init(_ resolve: @escaping @Sendable (_ existingID: Entity.ID, _ newID: Entity.ID, _ new: Entity, _ context: inout Context) throws -> Void) {
        self.resolve = { existing, new, context in try resolve(existing, new.id, new, &context) }
        self.acceptsCollisions = true
    }

    /// SwiftletModel's earlier two-argument form: the id holding the key, and the context.
    /// A collision the resolver leaves in place is accepted.
    public init(resolveCollisionHandler: @escaping @Sendable (_ existingID: Entity.ID, _ context: inout Context) throws -> Void) {
        self.resolve = { existing, _, context in try resolveCollisionHandler(existing, &context) }
        self.acceptsCollisions = true
    }
}

/// What a unique index does when a save would give a second entity its key.
public enum CollisionPolicy<Entity: EntityModelProtocol>: Sendable {
    /// Throw ``UniqueConstraintViolation``; the context is left unchanged.
    case `throw`
    /// Delete the entity holding the key (applying its delete rules), then save.
    case upsert
    /// Run a resolver written in Swift, then save if the collision is gone.
    case resolver(CollisionResolver<Entity>)
}

/// A save would give a unique index key to a second entity.
public struct UniqueConstraintViolation: Error, CustomStringConvertible, Sendable {
    public let entityName: String
    public let indexName: String
    /// The id of the entity already holding the key, as text.
    public let existingID: String
    /// The id of the entity being saved, as text.
    public let newID: String

    @usableFromInline
    init(entityName: String, indexName: String, existingID: String, newID: String) {
        self.entityName = entityName
        self.indexName = indexName
        self.existingID = existingID
        self.newID = newID
    }

    public var description: String {
        "\(entityName) \(newID) collides with \(existingID) on unique index '\(indexName)'"
    }
}
