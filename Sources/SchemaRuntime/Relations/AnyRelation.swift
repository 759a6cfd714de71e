/// A type-erased relation of `Source`, as listed in `Source.relations`.
public struct AnyRelation<Source: EntityModelProtocol>: Sendable {
    /// The relation's name in the schema.
    public let name: String
    /// The relation property's projected value, for matching key paths given to queries.
    public let keyPath: AnyKeyPath & Sendable
    /// Where the links are stored in `Source`'s table.
    public let slot: LinkSlot
    /// The related entity type.
    public let target: any EntityModelProtocol.Type
    /// The inverse relation's slot on the target, for mutual relations.
    public let inverse: LinkSlot?
    /// What deleting a `Source` does to linked entities.
    public let deleteRule: DeleteRule
    /// Whether the relation is a `required` to-one: every stored `Source` holds a link in it
    /// at the end of each write (see ``RequiredRelationViolation``).
    public let isRequired: Bool

    let resolveBulk: @Sendable (inout Source, Int32, Context, ArraySlice<Nested>) -> Void
    let deleteTargets: @Sendable (inout Context, [Int32]) throws -> Void
    /// Drops id links to targets that are not stored in the context, except links of an
    /// entity to itself. With `keepsOneWay`, only mutual relations are filtered: a one-way
    /// link to an id without a row is valid data (``Deleted/restore(in:)``); without it,
    /// every relation is (pack export keeps only links among the selected entities).
    let keepStoredTargets: @Sendable (inout Source, Context, _ keepsOneWay: Bool) -> Void
    /// The entities the relation of a `Source` holds (resolved by a query, or embedded to be
    /// saved), in order; none for ids.
    let loadedEntities: @Sendable (Source) -> [any EntityModelProtocol]
    /// The first step of saving each entity embedded in the relation of a `Source`, in order.
    let embeddedSaves: @Sendable (Source) -> [SaveStep]
    /// Links the `Source` at a key as its relation says; embedded entities are already saved.
    let link: @Sendable (Source, EntityKey<Source>, inout Context) -> Void
    /// Sets the relation of the `Source` at a key to every id it links to, stored or not
    /// (``ContextDocument``: a document keeps links to ids saved later, as the context does).
    let linkAllIDs: @Sendable (inout Source, Int32, Context) -> Void
    /// Queues archiving the stored entities linked from the `Source` at a key (for a cascade
    /// relation of a delete that keeps archives, see `Context.archiveBeforeDeleting`).
    let queueArchives: @Sendable (Context, Int32, inout Context.ArchiveWork) -> Void

    var targetTable: ObjectIdentifier { ObjectIdentifier(target) }
}

extension EntityModelProtocol {
    /// The relation whose projected value is `keyPath`. Relations are generated, so a miss
    /// is a programming error.
    @usableFromInline
    static func relation(for keyPath: AnyKeyPath) -> AnyRelation<Self> {
        guard let relation = relations.first(where: { $0.keyPath == keyPath }) else {
            preconditionFailure("\(keyPath) is not a relation of \(Self.entityName)")
        }
        return relation
    }
}
