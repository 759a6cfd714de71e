/// One change a migration makes to a store, as listed in a ``MigrationPlan``.
public enum MigrationStep: Hashable, Sendable, CustomStringConvertible {
    /// How an added field, or a field that became required, gets its value in existing rows.
    public enum Fill: Hashable, Sendable {
        /// NULL (an optional field).
        case null
        /// The schema's default, as written.
        case defaultValue(String)
        /// The migration closure registered for the field.
        case migration
    }

    case addEntity(String)
    /// The entity's rows and links are deleted.
    case removeEntity(String)
    case renameEntity(from: String, to: String)
    case addField(entity: String, field: String, type: String, fill: Fill)
    /// The field's stored values are deleted.
    case removeField(entity: String, field: String)
    case renameField(entity: String, from: String, to: String)
    /// The field's type changed; the registered migration closure computes the new values.
    case convertField(entity: String, field: String, from: String, to: String)
    /// An optional field became required: rows holding nil get `fill`.
    case makeRequired(entity: String, field: String, fill: Fill)
    case makeOptional(entity: String, field: String)
    /// A new relation, with no links.
    case addRelation(entity: String, relation: String)
    /// A new relation whose inverse existed: it gets the inverse's links read backwards.
    case addRelationFromInverse(entity: String, relation: String, inverse: String)
    /// The relation's links are deleted.
    case removeRelation(entity: String, relation: String)
    case renameRelation(entity: String, from: String, to: String)
    /// To-one became to-many (each link becomes a one-element list), or to-many became
    /// to-one (fails, naming an id, if some entity has more than one link).
    case changeCardinality(entity: String, relation: String, toMany: Bool)
    /// The relation gained, lost or changed its inverse: its links are kept and the other
    /// side is rebuilt from them.
    case changeInverse(entity: String, relation: String, from: String?, to: String?)
    case startTrackingUpdatedAt(entity: String)
    /// The recorded save times are deleted.
    case stopTrackingUpdatedAt(entity: String)

    /// Whether the step deletes stored data.
    public var deletesData: Bool {
        switch self {
        case .removeEntity, .removeField, .removeRelation, .stopTrackingUpdatedAt: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case let .addEntity(name): "+ entity \(name): new, empty table"
        case let .removeEntity(name): "- entity \(name): removed; its rows and links are deleted"
        case let .renameEntity(from, to): "~ entity \(from) renamed to \(to)"
        case let .addField(entity, field, type, fill): "+ \(entity).\(field): \(type), new; existing rows get \(fill.spelling)"
        case let .removeField(entity, field): "- \(entity).\(field): removed; its values are deleted"
        case let .renameField(entity, from, to): "~ \(entity).\(from) renamed to \(to)"
        case let .convertField(entity, field, from, to): "~ \(entity).\(field): \(from) -> \(to), converted by its migration"
        case let .makeRequired(entity, field, fill): "~ \(entity).\(field): now required; nil values become \(fill.spelling)"
        case let .makeOptional(entity, field): "~ \(entity).\(field): now optional"
        case let .addRelation(entity, relation): "+ \(entity).\(relation): new relation"
        case let .addRelationFromInverse(entity, relation, inverse): "+ \(entity).\(relation): new relation, links read from its inverse \(inverse)"
        case let .removeRelation(entity, relation): "- \(entity).\(relation): removed; its links are deleted"
        case let .renameRelation(entity, from, to): "~ \(entity).\(from) renamed to \(to)"
        case let .changeCardinality(entity, relation, toMany):
            toMany ? "~ \(entity).\(relation): to-one -> to-many, each link kept"
                : "~ \(entity).\(relation): to-many -> to-one (fails if an entity has more than one link)"
        case let .changeInverse(entity, relation, from, to):
            "~ \(entity).\(relation): inverse \(from ?? "none") -> \(to ?? "none"), links kept"
        case let .startTrackingUpdatedAt(entity): "+ \(entity): records save times (existing rows have none)"
        case let .stopTrackingUpdatedAt(entity): "- \(entity): no longer records save times; they are deleted"
        }
    }
}

extension MigrationStep.Fill {
    var spelling: String {
        switch self {
        case .null: "nil"
        case .defaultValue(let value): "the default \(value)"
        case .migration: "the value its migration computes"
        }
    }
}
