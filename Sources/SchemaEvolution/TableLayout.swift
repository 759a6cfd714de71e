/// The tables a store keeps for a ``SchemaShape``: one per entity, one per stored relation
/// slot. Derived from the shape alone, so the layout a file was written with can be rebuilt
/// from the shape it records, and compared with the code's.
///
/// Which relation slots are stored: every one-way relation; both sides of a many-to-many pair
/// (each side keeps its own order); only the to-many side of a one-to-many pair, and one
/// side of a one-to-one pair (the other side is the same links read backwards).
public struct TableLayout: Sendable {
    /// A relation of an entity: `Entity.relation`.
    public struct RelationPath: Hashable, Sendable, CustomStringConvertible {
        public var entity: String
        public var relation: String

        public init(_ entity: String, _ relation: String) {
            self.entity = entity
            self.relation = relation
        }

        public var description: String { "\(entity).\(relation)" }
    }

    /// Where a relation's links are kept.
    public enum RelationStorage: Hashable, Sendable {
        /// In its own link table; `derivedInverse` (on the target) is the same links read backwards.
        case stored(table: String, derivedInverse: RelationPath?)
        /// Only in the inverse relation's table, read backwards.
        case derived(from: RelationPath)
    }

    /// The table of each entity, by entity name.
    public let entityTables: [String: String]
    /// The storage of each relation.
    public let relations: [RelationPath: RelationStorage]

    /// Every entity's first field and its table's primary key.
    public static let idField = "id"

    /// The column holding `metadata updatedAt` save times (a name no schema field can have).
    public static let updatedAtColumn = "schemagen:updatedAt"

    /// The SQL column names of an entity's table: its fields' names, `id` first, then the
    /// save time column if it tracks one, made unique ignoring case.
    public static func columnNames(of entity: EntityShape) -> [String] {
        SQLNames.unique(entity.fields.map(\.name) + (entity.tracksUpdatedAt ? [updatedAtColumn] : []))
    }

    /// The link table of a relation, if its links are stored in its own table.
    public func linkTable(_ path: RelationPath) -> String? {
        if case .stored(let table, _) = relations[path] { return table }
        return nil
    }

    public init(_ shape: SchemaShape) {
        // Table names: entities first, then one per relation (`Entity.relation`), made unique.
        var rawNames = shape.entities.map(\.name)
        for entity in shape.entities {
            for relation in entity.relations { rawNames.append("\(entity.name).\(relation.name)") }
        }
        var names = SQLNames.unique(rawNames)[...]
        var entityTables: [String: String] = [:]
        for entity in shape.entities { entityTables[entity.name] = names.popFirst()! }
        var relations: [RelationPath: RelationStorage] = [:]
        for entity in shape.entities {
            for relation in entity.relations {
                let table = names.popFirst()!
                relations[RelationPath(entity.name, relation.name)] = Self.storage(of: relation, in: entity, shape: shape, table: table)
            }
        }
        self.entityTables = entityTables
        self.relations = relations
    }

    private static func storage(of relation: RelationShape, in entity: EntityShape, shape: SchemaShape, table: String) -> RelationStorage {
        guard let inverseName = relation.inverse,
              let inverseRelation = shape.entity(relation.target)?.relation(inverseName) else {
            return .stored(table: table, derivedInverse: nil)
        }
        let inverse = RelationPath(relation.target, inverseName)
        let isSelfInverse = relation.target == entity.name && inverseName == relation.name
        switch (relation.isToMany, inverseRelation.isToMany) {
        case (true, true):
            return .stored(table: table, derivedInverse: nil)
        case (true, false):
            return .stored(table: table, derivedInverse: inverse)
        case (false, true):
            return .derived(from: inverse)
        case (false, false):
            if isSelfInverse { return .stored(table: table, derivedInverse: nil) }
            let this = (entity.name, relation.name), other = (inverse.entity, inverse.relation)
            return this < other ? .stored(table: table, derivedInverse: inverse) : .derived(from: inverse)
        }
    }
}
