/// An index declared in the schema; `schemagen` emits one per `index` line.
public struct IndexDescriptor<Entity: EntityModelProtocol>: Sendable {
    public enum Kind: Sendable {
        case ordered, hash, unique(CollisionPolicy<Entity>), fullText
    }

    public let name: String
    public let kind: Kind
    @usableFromInline let fields: [IndexField<Entity>]
    @usableFromInline let textFields: [TextField<Entity>]

    /// An ordered index on 1 to 4 fields: equality, ranges and sorted scans.
    public static func ordered(_ name: String, _ fields: IndexField<Entity>...) -> IndexDescriptor {
        IndexDescriptor(name: name, kind: .ordered, fields: fields, textFields: [])
    }

    /// A hash index on 1 to 4 fields: equality lookups.
    public static func hash(_ name: String, _ fields: IndexField<Entity>...) -> IndexDescriptor {
        IndexDescriptor(name: name, kind: .hash, fields: fields, textFields: [])
    }

    /// A unique index on 1 to 4 fields.
    public static func unique(_ name: String, _ fields: IndexField<Entity>..., onCollision: CollisionPolicy<Entity> = .throw) -> IndexDescriptor {
        IndexDescriptor(name: name, kind: .unique(onCollision), fields: fields, textFields: [])
    }

    /// A full-text index over one or more String fields.
    public static func fullText(_ name: String, _ fields: TextField<Entity>...) -> IndexDescriptor {
        IndexDescriptor(name: name, kind: .fullText, fields: [], textFields: fields)
    }

    @inlinable
    func key(of entity: Entity) -> IndexKey {
        fields.count == 1 ? IndexKey(fields[0].value(entity)) : IndexKey(fields.map { $0.value(entity) })
    }

    /// The indexed text of an entity: its fields joined by a space.
    @inlinable
    func text(of entity: Entity) -> String {
        textFields.count == 1 ? textFields[0].text(entity) : textFields.map { $0.text(entity) }.joined(separator: " ")
    }

    var isOrdered: Bool { if case .ordered = kind { true } else { false } }
}
