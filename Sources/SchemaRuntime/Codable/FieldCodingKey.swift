/// The coding key of generated `Codable` conformances: the schema's field or relation name.
///
/// One shared key type instead of a `CodingKeys` enum per entity and struct: an enum brings
/// about twenty synthesized functions (raw values, hashing, descriptions) into every
/// generated type; dropping them took a fifth to a third off compiling generated code
/// (docs/Performance.md, "Build times"). Decoders look keys up by `stringValue` either way.
public struct FieldCodingKey: CodingKey, ExpressibleByStringLiteral, Hashable, Sendable {
    public let stringValue: String

    public init(stringValue: String) {
        self.stringValue = stringValue
    }

    public init(stringLiteral value: String) {
        self.stringValue = value
    }

    /// Generated types are always keyed by name.
    public var intValue: Int? { nil }

    /// Generated types are always keyed by name, so integer keys match nothing.
    public init?(intValue: Int) {
        nil
    }
}
