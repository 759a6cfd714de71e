/// A whole context as one Codable document: every entity of a schema (and its soft-deleted
/// archives), keyed by entity name, each entity with every link it holds as ids (links to
/// ids not stored included, as the context keeps them).
///
/// ```swift
/// let data = try JSONEncoder().encode(ContextDocument<ChatModelsSchema>(context))
/// let copy = try JSONDecoder().decode(ContextDocument<ChatModelsSchema>.self, from: data).context
/// try document.save(to: &existing, asFragments: true)     // merge into another context
/// ```
///
/// `{"Chat": [...], "Message": [...], "Deleted<Message>": [...]}`: entities in context order,
/// to-many links in link order. Decoding saves everything in one transaction (archives
/// first), so links may point forward and `required` relations are checked once, at the end.
/// This is what SwiftletModel does with a schema-root entity and `.schemaEntities` (and,
/// saved as fragments, `.schemaFragments`); here the generated `<Target>Schema` lists the
/// entities, so no root entity is declared.
public struct ContextDocument<Schema: PersistentSchema>: Codable, Sendable {
    /// The context the document holds.
    public var context: Context

    public init(_ context: Context) {
        self.context = context
    }

    /// The schema's entity types that can be encoded (every generated entity is Codable).
    private static var types: [any (PersistentEntity & Codable).Type] {
        Schema.entities.compactMap { $0 as? any (PersistentEntity & Codable).Type }
    }

    // MARK: Encoding

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldCodingKey.self)
        for type in Self.types { try Self.encode(type, from: context, into: &container) }
    }

    private static func encode<Entity: PersistentEntity & Codable>(_ type: Entity.Type, from context: Context,
                                                                    into container: inout KeyedEncodingContainer<FieldCodingKey>) throws {
        try container.encode(entities(Entity.self, in: context), forKey: FieldCodingKey(stringValue: Entity.entityName))
        let archived = Deleted<Entity>.query(in: context).resolve()
        if !archived.isEmpty { try container.encode(archived, forKey: FieldCodingKey(stringValue: Deleted<Entity>.entityName)) }
    }

    /// The stored entities of a type, in context order, with every link as it is stored.
    private static func entities<Entity: PersistentEntity>(_ type: Entity.Type, in context: Context) -> [Entity] {
        // A context reading on demand holds nothing until asked.
        let context = context.holdingEveryEntity(of: Entity.self)
        return context.liveKeys(Entity.self).compactMap { context.entityWithEveryLink(Entity.self, key: $0) }
    }

    // MARK: Decoding and saving

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldCodingKey.self)
        var context = Context()
        try context.transaction { context in
            for type in Self.types { try Self.decodeArchives(type, container, into: &context) }
            for type in Self.types { try Self.decodeEntities(type, container, into: &context) }
        }
        self.context = context
    }

    /// Saves the document's entities into `context`, in one transaction: with each entity's
    /// default merge strategy, or as fragments (its fragment strategy, which keeps what the
    /// document leaves out). Archives are saved first.
    public func save(to target: inout Context, asFragments: Bool = false) throws {
        let source = context
        try target.transaction { target in
            for type in Self.types { try Self.copyArchives(type, from: source, to: &target) }
            for type in Self.types { try Self.copyEntities(type, from: source, to: &target, asFragments: asFragments) }
        }
    }

    private static func decodeArchives<Entity: PersistentEntity & Codable>(_ type: Entity.Type, _ container: KeyedDecodingContainer<FieldCodingKey>,
                                                                            into context: inout Context) throws {
        let archives = try container.decodeIfPresent([Deleted<Entity>].self, forKey: FieldCodingKey(stringValue: Deleted<Entity>.entityName))
        try saveArchives(archives ?? [], to: &context)
    }

    private static func decodeEntities<Entity: PersistentEntity & Codable>(_ type: Entity.Type, _ container: KeyedDecodingContainer<FieldCodingKey>,
                                                                            into context: inout Context) throws {
        let entities = try container.decodeIfPresent([Entity].self, forKey: FieldCodingKey(stringValue: Entity.entityName))
        try save(entities ?? [], to: &context, asFragments: false)
    }

    private static func copyArchives<Entity: PersistentEntity & Codable>(_ type: Entity.Type, from source: Context, to target: inout Context) throws {
        try saveArchives(Deleted<Entity>.query(in: source).resolve(), to: &target)
    }

    private static func copyEntities<Entity: PersistentEntity & Codable>(_ type: Entity.Type, from source: Context, to target: inout Context,
                                                                          asFragments: Bool) throws {
        try save(entities(Entity.self, in: source), to: &target, asFragments: asFragments)
    }

    /// Archives are stored as they are: saving a `Deleted` would delete its entity, which a
    /// document holding both a re-saved entity and its older archive must keep.
    private static func saveArchives<Entity: PersistentEntity>(_ archives: [Deleted<Entity>], to context: inout Context) throws {
        for archive in archives { _ = try context.upsert(archive, options: .replace) }
    }

    private static func save<Entity: PersistentEntity>(_ entities: [Entity], to context: inout Context, asFragments: Bool) throws {
        let strategy = asFragments ? Entity.fragmentMergeStrategy : Entity.defaultMergeStrategy
        for entity in entities { try entity.save(to: &context, options: strategy) }
    }
}
