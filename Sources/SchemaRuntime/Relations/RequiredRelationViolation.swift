/// Thrown when a write would leave a stored entity without the link a `required` to-one
/// relation must hold. The write is rolled back: the context is exactly as it was before it.
///
/// The rule is checked when the outermost transaction ends (a single `save` or `delete` is
/// one), so links may be made in any order within it: a message saved first and linked to
/// its chat by the chat's save in the same transaction is fine. It is broken by
/// - saving a new entity without the link (`.none`, or a decoded `null`);
/// - deleting the linked entity of a mutual relation whose inverse does not cascade (the
///   inverse's `nullify` then works as a *deny* rule: delete or relink the entity first);
/// - linking the target elsewhere through the inverse (a to-one inverse moves, a to-many
///   inverse saved with a list that leaves the entity out), or `detach` on the inverse.
///
/// A one-way required relation holds an id: deleting its target does not touch it (as with
/// any id link, the target may be saved again later, and queries resolve it to nil meanwhile).
public struct RequiredRelationViolation: Error, CustomStringConvertible, Sendable, Equatable {
    /// The entity that would lack the link.
    public let entityName: String
    /// Its id, as text.
    public let id: String
    /// The required relation.
    public let relationName: String
    /// The relation's target entity.
    public let targetName: String
    /// The entity it was linked to before the write, and whether that entity is still stored
    /// (false: it was deleted). nil when the entity was saved without the link.
    public let removedLink: RemovedLink?

    /// The link a write removed.
    public struct RemovedLink: Sendable, Equatable {
        /// The id of the entity linked before, as text.
        public let id: String
        /// Whether that entity is still stored; false when the write deleted it.
        public let isStored: Bool

        public init(id: String, isStored: Bool) {
            self.id = id
            self.isStored = isStored
        }
    }

    public init(entityName: String, id: String, relationName: String, targetName: String, removedLink: RemovedLink?) {
        self.entityName = entityName
        self.id = id
        self.relationName = relationName
        self.targetName = targetName
        self.removedLink = removedLink
    }

    public var description: String {
        let subject = "\(entityName) '\(id)'"
        let rule = "'\(relationName)' is a required relation"
        guard let removedLink else {
            return "\(subject) was saved without \(relationName): \(rule), so save it with a link to a \(targetName) "
                + "(.id, .relation or .fragment) or link it in the same transaction"
        }
        let target = "\(targetName) '\(removedLink.id)'"
        if removedLink.isStored {
            return "\(subject) would have no \(relationName): \(target) no longer links to it and \(rule); "
                + "link it to another \(targetName) or delete it in the same transaction"
        }
        return "\(subject) would have no \(relationName): deleting \(target) removed the link and \(rule); "
            + "delete the \(entityName) too (onDelete: cascade on the inverse does it) or link it to another \(targetName) first"
    }
}
