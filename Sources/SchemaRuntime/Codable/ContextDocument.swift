/// A whole context as one Codable document: every entity of a schema (and its soft-deleted
/// archives), keyed by entity name, each entity with every link it holds as ids (links to
/// ids not stored included, as the context keeps them).
///
/// ```swift
/// let data = try JSONEncoder().encode(ContextDocument<ChatModelsSchema>(context))
/// let copy = try JSONDecoder().decode(ContextDocument<ChatModelsSchema>.self, from: data).context
/// ```
///
/// `{"Chat": [...], "Message": [...], "Deleted<Message>": [...]}`: entities in context order,
/// to-many links in link order. Decoding saves everything in one transaction (archives
/// first), so links may point forward and `required` relations are checked once, at the end.
/// This is what SwiftletModel does with a schema-root entity and `.schemaEntities`; here the
/// generated `<Target>Schema` lists the entities, so no root entity is declared.
public struct ContextDocument<Schema: PersistentSchema>: Codable, Sendable {
    /// The context the document holds.
    public var context: Context

    public init(_ context: Context) {
        self.context = context
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldCodingKey.self)
        for type in Schema.entities {
            guard let codable = type as? any (PersistentEntity & Codable).Type else { continue }
            try Self.encode(codable, from: context, into: &container)
        }
    }

    private static func encode<Entity: PersistentEntity & Codable>(_ type: Entity.Type, from context: Context,
                                                                    into container: inout KeyedEncodingContainer<FieldCodingKey>) throws {
        // Every link as it is stored, also to ids saved later (as a context keeps them).
        let entities = context.liveKeys(Entity.self).compactMap { key -> Entity? in
            guard var entity = context.row(Entity.self, key) else { return nil }
            for relation in Entity.relations { relation.linkAllIDs(&entity, key, context) }
            return entity
        }
        try container.encode(entities, forKey: FieldCodingKey(stringValue: Entity.entityName))
        let archived = Deleted<Entity>.query(in: context).resolve()
        if !archived.isEmpty { try container.encode(archived, forKey: FieldCodingKey(stringValue: Deleted<Entity>.entityName)) }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldCodingKey.self)
        var context = Context()
        try context.transaction { context in
            let types = Schema.entities.compactMap { $0 as? any (PersistentEntity & Codable).Type }
            for type in types { try Self.decodeArchives(type, from: container, into: &context) }
            for type in types { try Self.decode(type, from: container, into: &context) }
        }
        self.context = context
    }

    private static func decodeArchives<Entity: PersistentEntity & Codable>(_ type: Entity.Type, from container: KeyedDecodingContainer<FieldCodingKey>,
                                                                            into context: inout Context) throws {
        let key = FieldCodingKey(stringValue: Deleted<Entity>.entityName)
        for archive in try container.decodeIfPresent([Deleted<Entity>].self, forKey: key) ?? [] {
            _ = try context.upsert(archive, options: .replace)
        }
    }

    private static func decode<Entity: PersistentEntity & Codable>(_ type: Entity.Type, from container: KeyedDecodingContainer<FieldCodingKey>,
                                                                    into context: inout Context) throws {
        let entities = try container.decodeIfPresent([Entity].self, forKey: FieldCodingKey(stringValue: Entity.entityName)) ?? []
        for entity in entities { try entity.save(to: &context, options: .replace) }
    }
}
