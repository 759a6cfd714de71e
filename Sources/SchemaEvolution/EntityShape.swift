/// One entity of a ``SchemaShape``.
public struct EntityShape: Codable, Hashable, Sendable {
    public var name: String
    /// Names the entity had in earlier schema versions, most recent first.
    public var renamedFrom: [String]
    /// Every field, `id` first.
    public var fields: [FieldShape]
    public var relations: [RelationShape]
    /// Whether the store keeps each entity's save time (`metadata updatedAt`).
    public var tracksUpdatedAt: Bool

    public init(_ name: String, renamedFrom: [String] = [], fields: [FieldShape], relations: [RelationShape] = [], tracksUpdatedAt: Bool = false) {
        self.name = name
        self.renamedFrom = renamedFrom
        self.fields = fields
        self.relations = relations
        self.tracksUpdatedAt = tracksUpdatedAt
    }

    public func field(_ name: String) -> FieldShape? { fields.first { $0.name == name } }
    public func relation(_ name: String) -> RelationShape? { relations.first { $0.name == name } }

    // Recorded shapes are read by later versions of this code: keys added since are optional.
    private enum CodingKeys: String, CodingKey { case name, renamedFrom, fields, relations, tracksUpdatedAt }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        renamedFrom = try container.decodeIfPresent([String].self, forKey: .renamedFrom) ?? []
        fields = try container.decode([FieldShape].self, forKey: .fields)
        relations = try container.decodeIfPresent([RelationShape].self, forKey: .relations) ?? []
        tracksUpdatedAt = try container.decodeIfPresent(Bool.self, forKey: .tracksUpdatedAt) ?? false
    }
}
