@_spi(SchemaStore) import SchemaRuntime

/// The tables of a schema: one per entity and one per stored link slot (see ``LinkLayout``).
struct StoreLayout: Sendable {
    let fingerprint: String
    let entities: [any AnyEntityPersister]
    let links: [LinkLayout]
    let persisterByTable: [ObjectIdentifier: any AnyEntityPersister]

    init(_ schema: any PersistentSchema.Type) {
        fingerprint = schema.fingerprint
        // Table names: entities first, then one per relation (`Entity.relation`), made unique.
        var rawNames: [String] = []
        for type in schema.entities { rawNames.append(type.entityName) }
        for type in schema.entities {
            for name in Self.relationNames(of: type) { rawNames.append("\(type.entityName).\(name)") }
        }
        let uniqueNames = SQLNames.unique(rawNames)
        var persisters: [any AnyEntityPersister] = []
        for (offset, type) in schema.entities.enumerated() {
            persisters.append(Self.persister(for: type, tableName: uniqueNames[offset]))
        }
        entities = persisters
        var linkNames = uniqueNames.dropFirst(persisters.count)
        var byTable: [ObjectIdentifier: any AnyEntityPersister] = [:]
        for entity in entities { byTable[entity.table] = entity }
        persisterByTable = byTable
        var links: [LinkLayout] = []
        for entity in entities {
            for relation in entity.relations {
                let tableName = linkNames.popFirst()!
                // The generator lists every entity of a target, and relations never leave it.
                guard let target = byTable[relation.target] else {
                    preconditionFailure("\(entity.entityName).\(relation.name) targets \(relation.targetName), which the schema does not list")
                }
                guard case .stored(let derived) = Self.storage(of: relation, in: entity, target: target) else { continue }
                links.append(LinkLayout(name: tableName, ownerEntity: entity, targetEntity: target, slot: relation.slot,
                                        derivedInverse: derived))
            }
        }
        self.links = links
    }

    private static func relationNames<Entity: PersistentEntity>(of type: Entity.Type) -> [String] {
        Entity.relations.map(\.name)
    }

    private static func persister<Entity: PersistentEntity>(for type: Entity.Type, tableName: String) -> any AnyEntityPersister {
        EntityPersister<Entity>(tableName: tableName)
    }

    /// Where a relation's links are kept.
    private enum SlotStorage {
        /// In the relation's own link table; `derivedInverse` is filled in from it on load.
        case stored(derivedInverse: LinkSlot?)
        /// Only in the inverse relation's table.
        case derived
    }

    private static func storage(of relation: RelationInfo, in entity: any AnyEntityPersister, target: any AnyEntityPersister) -> SlotStorage {
        guard let inverse = relation.inverse else { return .stored(derivedInverse: nil) }
        let isSelfInverse = relation.target == entity.table && inverse == relation.slot
        switch (relation.slot.cardinality, inverse.cardinality) {
        case (.toMany, .toMany):
            return .stored(derivedInverse: nil)
        case (.toMany, .toOne):
            return .stored(derivedInverse: inverse)
        case (.toOne, .toMany):
            return .derived
        case (.toOne, .toOne):
            if isSelfInverse { return .stored(derivedInverse: nil) }
            let inverseName = target.relations.first { $0.slot == inverse }?.name ?? ""
            let this = (entity.entityName, relation.name), other = (target.entityName, inverseName)
            return this < other ? .stored(derivedInverse: inverse) : .derived
        }
    }

    /// A description of every table and column, recorded in the store file (for schema
    /// evolution and for reading the file with other tools).
    var description: String {
        var lines: [String] = []
        for entity in entities {
            let columns = entity.columns.map { "\($0.name) \($0.type.rawValue)\($0.isNullable ? "?" : "")\($0.isJSON ? " json" : "")" }
            lines.append("entity \(entity.tableName)(\(columns.joined(separator: ", ")))")
        }
        for link in links {
            lines.append("link \(link.name)(\(link.isToMany ? "to-many" : "to-one") \(link.ownerEntity.idType.rawValue) -> \(link.targetEntity.idType.rawValue))")
        }
        return lines.joined(separator: "\n")
    }
}
