import SchemaRuntime

/// A link table: the stored links of one relation slot.
///
/// Which slots are stored: every one-way relation; both sides of a many-to-many pair (each
/// side keeps its own order); only the to-many side of a one-to-many pair, and one side of a
/// one-to-one pair (the other side is the same links read backwards, filled in on load).
struct LinkLayout: Sendable {
    /// The table's SQL name: `Entity.relation` (see ``SQLNames``).
    var name: String
    /// The relation whose links these are.
    var path: TableLayout.RelationPath
    /// The entity whose relation this is, and the one it links to.
    var ownerEntity: any AnyEntityPersister
    var targetEntity: any AnyEntityPersister
    var slot: LinkSlot
    /// The inverse slot on the target, when it is not stored itself and is filled in on load.
    var derivedInverse: LinkSlot?

    var owner: ObjectIdentifier { ownerEntity.table }
    var target: ObjectIdentifier { targetEntity.table }
    var isToMany: Bool { slot.cardinality == .toMany }
}
