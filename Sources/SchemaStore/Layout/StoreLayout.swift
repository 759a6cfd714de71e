@_spi(SchemaStore) import SchemaRuntime

/// The tables of a schema: one per entity and one per stored link slot (see ``LinkLayout``).
/// Names and link storage come from the schema's shape (``TableLayout``), the same function
/// that rebuilds the layout a file was written with when it is migrated.
struct StoreLayout: Sendable {
    let fingerprint: String
    let shape: SchemaShape
    let tables: TableLayout
    let entities: [any AnyEntityPersister]
    let links: [LinkLayout]
    let persisterByTable: [ObjectIdentifier: any AnyEntityPersister]
    /// Entities by entity name, and link tables by table name, as stored records name them
    /// (overlay records, the commit log).
    let entityByName: [String: any AnyEntityPersister]
    let linkByName: [String: LinkLayout]
    /// The archive persister of each entity type (generated entities are Codable), by the
    /// context table of its `Deleted<Entity>` rows and by entity name.
    let archives: [ObjectIdentifier: any AnyArchivePersister]
    let archivesByName: [String: any AnyArchivePersister]
    /// The terms table of every full-text index, worked out once: a server store asks on
    /// every write that changes indexed text (``StoreTransaction/fullTextIndexesPresent(_:)``).
    let fullTextTermsTables: Set<String>

    init(_ schema: any PersistentSchema.Type) {
        fingerprint = schema.fingerprint
        shape = schema.shape
        tables = TableLayout(shape)
        let entityNames = schema.entities.map { type in type.entityName }
        precondition(shape.entities.map(\.name) == entityNames, "\(schema).shape does not list \(schema).entities: regenerate the schema code")
        var persisters: [any AnyEntityPersister] = []
        for (offset, type) in schema.entities.enumerated() {
            persisters.append(Self.persister(for: type, shape: shape.entities[offset], tables: tables))
        }
        entities = persisters
        var byTable: [ObjectIdentifier: any AnyEntityPersister] = [:]
        for entity in entities {
            byTable[entity.table] = entity
        }
        persisterByTable = byTable
        entityByName = Dictionary(entities.map { ($0.entityName, $0) }, uniquingKeysWith: { first, _ in first })
        let archivePersisters = schema.entities.compactMap(Self.archivePersister)
        archives = Dictionary(uniqueKeysWithValues: archivePersisters.map { ($0.table, $0) })
        archivesByName = Dictionary(uniqueKeysWithValues: archivePersisters.map { ($0.entityName, $0) })
        var links: [LinkLayout] = []
        for entity in entities {
            for relation in entity.relations {
                // The generator lists every entity of a target, and relations never leave it.
                guard let target = byTable[relation.target] else {
                    preconditionFailure("\(entity.entityName).\(relation.name) targets \(relation.targetName), which the schema does not list")
                }
                let path = TableLayout.RelationPath(entity.entityName, relation.name)
                guard case .stored(let table, let derived) = tables.relations[path] else { continue }
                let derivedSlot = derived.map { path in target.relations.first { $0.name == path.relation }!.slot }
                links.append(LinkLayout(name: table, path: path, ownerEntity: entity, targetEntity: target, slot: relation.slot,
                                        derivedInverse: derivedSlot))
            }
        }
        self.links = links
        linkByName = Dictionary(links.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        fullTextTermsTables = Set(entities.flatMap(\.fullTextIndexes).map(\.termsTable))
    }

    private static func archivePersister(for type: any PersistentEntity.Type) -> (any AnyArchivePersister)? {
        guard let codable = type as? any (PersistentEntity & Codable).Type else { return nil }
        return archivePersister(codable)
    }

    private static func archivePersister<Entity: PersistentEntity & Codable>(_ type: Entity.Type) -> any AnyArchivePersister {
        ArchivePersister<Entity>()
    }

    private static func persister<Entity: PersistentEntity>(for type: Entity.Type, shape: EntityShape, tables: TableLayout) -> any AnyEntityPersister {
        EntityPersister<Entity>(shape: shape, tableName: tables.entityTables[shape.name]!)
    }

    /// A description of every table and column, recorded in the store file for reading it
    /// with other tools (the recorded shape is what migrations use).
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
