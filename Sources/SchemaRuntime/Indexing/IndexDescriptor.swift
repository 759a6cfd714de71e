/// One indexed field, as generated: `.field(\.age)`, `.field(\.name, descending: true)`.
public struct IndexField<Entity>: Sendable {
    /// The field's key path, for matching filters and sorts to indexes.
    let keyPath: AnyKeyPath & Sendable
    /// The same path through `.desc`, for matching descending sorts.
    let descendingKeyPath: ImmutableKeyPath
    let descending: Bool
    @usableFromInline let value: @Sendable (Entity) -> IndexValue

    public static func field<Value: IndexKeyConvertible & Sendable>(_ keyPath: KeyPath<Entity, Value> & Sendable, descending: Bool = false) -> IndexField {
        IndexField(keyPath: keyPath, descendingKeyPath: ImmutableKeyPath(keyPath.appending(path: \Value.desc)), descending: descending,
                   value: { $0[keyPath: keyPath].indexValue })
    }
}

/// A key path held across concurrency domains. Key paths are immutable values; only the
/// ones built at run time (with `appending`) lack the Sendable inference literals get.
struct ImmutableKeyPath: @unchecked Sendable, Hashable {
    let keyPath: AnyKeyPath
    init(_ keyPath: AnyKeyPath) { self.keyPath = keyPath }
}

/// One field of a full-text index, as generated: `.text(\.title)`.
public struct TextField<Entity>: Sendable {
    let keyPath: AnyKeyPath & Sendable
    @usableFromInline let text: @Sendable (Entity) -> String

    public static func text(_ keyPath: KeyPath<Entity, String> & Sendable) -> TextField {
        TextField(keyPath: keyPath, text: { $0[keyPath: keyPath] })
    }

    public static func text(_ keyPath: KeyPath<Entity, String?> & Sendable) -> TextField {
        TextField(keyPath: keyPath, text: { $0[keyPath: keyPath] ?? "" })
    }
}

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
/// save throws ``UniqueConstraintViolation``.
public struct CollisionResolver<Entity: EntityModelProtocol>: Sendable {
    public let resolve: @Sendable (_ existingID: Entity.ID, _ new: Entity, _ context: inout Context) throws -> Void

    public init(_ resolve: @escaping @Sendable (_ existingID: Entity.ID, _ new: Entity, _ context: inout Context) throws -> Void) {
        self.resolve = resolve
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

/// Sort and filter key paths may end in `.desc` for descending order: `\.age.desc`.
public struct Descending<Value: IndexKeyConvertible>: IndexKeyConvertible {
    public let value: Value
    public var indexValue: IndexValue { value.indexValue }
    public static var isDescending: Bool { true }
}

extension IndexKeyConvertible {
    /// Sorts by this value in descending order: `sorted(by: \.age.desc)`.
    public var desc: Descending<Self> { Descending(value: self) }
    public static var isDescending: Bool { false }
}
