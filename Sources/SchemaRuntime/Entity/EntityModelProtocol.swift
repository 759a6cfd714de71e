/// The conformance `schemagen` generates for every entity declared in a schema.
///
/// Generated code implements the storage-facing requirements (`save`, `delete`, `normalize`,
/// `relations`, merge strategies). The hooks (`willSave`, `didSave`, `willDelete`, `didDelete`)
/// have empty defaults; implement them in an extension of the generated type to add behaviour.
public protocol EntityModelProtocol: Sendable {
    /// The identifier type, declared as the entity's `id` field in the schema.
    associatedtype ID: Hashable & Sendable

    /// The entity's identity within its type.
    var id: ID { get }

    /// The entity's name as written in the schema.
    static var entityName: String { get }

    /// Every relation of the entity, in schema order.
    static var relations: [AnyRelation<Self>] { get }

    /// Every index declared in the schema, maintained on save and delete.
    static var indexes: [IndexDescriptor<Self>] { get }

    /// Whether the context records when each entity was last saved (`metadata updatedAt`).
    static var tracksUpdatedAt: Bool { get }
    /// Whether deleting an entity keeps a ``Deleted`` archive of it (`metadata softDelete`),
    /// as SwiftletModel's `delete(from:)` does.
    static var keepsDeletedArchives: Bool { get }

    /// Sets every relation to `.none`. The context stores entities this way: links live in the
    /// context's link columns, and queries fill relations back in as requested.
    mutating func normalize()

    /// Called before the entity is written; may adjust the entity or the context, or throw to cancel.
    mutating func willSave(to context: inout Context) throws

    /// Called after the entity and its relations were written.
    func didSave(to context: inout Context) throws

    /// Called before the entity is removed; throw to cancel the delete.
    func willDelete(from context: inout Context) throws

    /// Called after the entity was removed and its delete rules applied.
    func didDelete(from context: inout Context) throws

    /// Saves the entity and everything embedded in its relations, merging with stored data.
    func save(to context: inout Context, options: MergeStrategy<Self>) throws

    /// Removes this entity alone, applying each relation's delete rule; entities reached by
    /// `cascade` rules are queued in `cascade`, not deleted. Generated; call
    /// ``delete(from:)`` instead, which runs the whole cascade.
    func delete(from context: inout Context, cascade: inout CascadeDeletes) throws

    /// The strategy used by `save(to:)`.
    static var defaultMergeStrategy: MergeStrategy<Self> { get }

    /// The strategy used for `.fragment` saves.
    static var fragmentMergeStrategy: MergeStrategy<Self> { get }

    /// Keeps stored values for every optional `var` field the new value leaves `nil`.
    static var patch: MergeStrategy<Self> { get }
}

extension EntityModelProtocol {
    public static var indexes: [IndexDescriptor<Self>] { [] }
    public static var tracksUpdatedAt: Bool { false }
    public static var keepsDeletedArchives: Bool { false }

    public mutating func willSave(to context: inout Context) throws {}
    public func didSave(to context: inout Context) throws {}
    public func willDelete(from context: inout Context) throws {}
    public func didDelete(from context: inout Context) throws {}

    /// Removes the entity, applying each relation's delete rule, and deletes what `cascade`
    /// rules reach (iteratively: any chain length is fine). One transaction: if a hook throws,
    /// nothing is deleted.
    public func delete(from context: inout Context) throws {
        try context.deleteCascading(self)
    }

    /// Saves with ``defaultMergeStrategy``.
    public func save(to context: inout Context) throws {
        try save(to: &context, options: Self.defaultMergeStrategy)
    }

    /// Deletes the stored entity with `id` as ``delete(from:)`` does; nothing when none is
    /// stored.
    public static func delete(id: ID, from context: inout Context) throws {
        try context.find(Self.self, id: id)?.delete(from: &context)
    }

    /// A query for this entity (by its id), resolved with `resolve(in:)`.
    public func query() -> ContextFreeQuery<Self> { ContextFreeQuery(id: id) }

    /// A query for this entity (by its id) in `context`.
    public func query(in context: Context) -> Query<Self> { Query(context: context, id: id) }
}

extension Sequence where Element: EntityModelProtocol {
    /// Saves every entity in one transaction: if any save throws, none is kept.
    public func save(to context: inout Context, options: MergeStrategy<Element> = Element.defaultMergeStrategy) throws {
        try context.transaction { context in
            // Writing on demand: the stored rows are read in batches, not one by one.
            context.faultEntities(ids: map { $0.id }, Element.self)
            for entity in self { try entity.save(to: &context, options: options) }
        }
    }

    /// Deletes every entity in one transaction: if any delete throws, none is applied.
    public func delete(from context: inout Context) throws {
        try context.transaction { context in
            for entity in self { try entity.delete(from: &context) }
        }
    }
}
