/// One field of an ``EntityShape``: a column of the entity's table.
public struct FieldShape: Codable, Hashable, Sendable {
    public var name: String
    /// Names the field had in earlier schema versions, most recent first.
    public var renamedFrom: [String]
    /// The type as the schema spells it (`Int`, `String?`, `[Tag]`, `UserStatus`).
    public var type: String
    /// The column's type.
    public var column: StoredType
    /// Whether the column holds JSON text (types without a column type of their own).
    public var isJSON: Bool
    /// The schema's default value as written (`0`, `.active`, `[]`), if it has one: what
    /// existing rows get when the field is added or becomes required.
    public var defaultValue: String?

    public init(_ name: String, _ type: String, column: StoredType, isJSON: Bool = false, defaultValue: String? = nil, renamedFrom: [String] = []) {
        self.name = name
        self.renamedFrom = renamedFrom
        self.type = type
        self.column = column
        self.isJSON = isJSON
        self.defaultValue = defaultValue
    }

    /// Whether the column accepts NULL (the type is optional).
    public var isNullable: Bool { type.hasSuffix("?") }

    /// The type without its optional mark.
    public var wrappedType: String { isNullable ? String(type.dropLast()) : type }

    /// Whether values stored for `other` read back as this field's values, up to optionality:
    /// same type name, same column, same JSON-ness.
    func storesSameValues(as other: FieldShape) -> Bool {
        wrappedType == other.wrappedType && column == other.column && isJSON == other.isJSON
    }

    private enum CodingKeys: String, CodingKey { case name, renamedFrom, type, column, isJSON, defaultValue }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        renamedFrom = try container.decodeIfPresent([String].self, forKey: .renamedFrom) ?? []
        type = try container.decode(String.self, forKey: .type)
        column = try container.decode(StoredType.self, forKey: .column)
        isJSON = try container.decodeIfPresent(Bool.self, forKey: .isJSON) ?? false
        defaultValue = try container.decodeIfPresent(String.self, forKey: .defaultValue)
    }
}
