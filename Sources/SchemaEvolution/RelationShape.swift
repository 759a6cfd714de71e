/// One relation of an ``EntityShape``.
public struct RelationShape: Codable, Hashable, Sendable {
    public var name: String
    /// Names the relation had in earlier schema versions, most recent first.
    public var renamedFrom: [String]
    /// The related entity.
    public var target: String
    public var isToMany: Bool
    /// The inverse relation on the target, for mutual relations.
    public var inverse: String?

    public init(_ name: String, to target: String, toMany: Bool = false, inverse: String? = nil, renamedFrom: [String] = []) {
        self.name = name
        self.renamedFrom = renamedFrom
        self.target = target
        self.isToMany = toMany
        self.inverse = inverse
    }

    private enum CodingKeys: String, CodingKey { case name, renamedFrom, target, isToMany, inverse }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        renamedFrom = try container.decodeIfPresent([String].self, forKey: .renamedFrom) ?? []
        target = try container.decode(String.self, forKey: .target)
        isToMany = try container.decodeIfPresent(Bool.self, forKey: .isToMany) ?? false
        inverse = try container.decodeIfPresent(String.self, forKey: .inverse)
    }
}
