/// A field's default value as written in a schema. Kept structured (not as source text) so
/// both syntaxes describe it the same way and the validator can check it against the type.
public indirect enum DefaultValue: Hashable, Sendable, CustomStringConvertible {
    case string(String)
    case integer(String)
    case float(String)
    case bool(Bool)
    case `nil`
    /// `.active`: a case of the field's enum type (or a static member of its type).
    case member(String)
    case array([DefaultValue])
    /// `[:]`.
    case emptyDictionary

    /// The value as Swift source.
    public var description: String {
        switch self {
        case .string(let value): SwiftLiteral.string(value)
        case .integer(let text), .float(let text): text
        case .bool(let value): value ? "true" : "false"
        case .nil: "nil"
        case .member(let name): ".\(SwiftName.escaped(name))"
        case .array(let elements): "[" + elements.map(\.description).joined(separator: ", ") + "]"
        case .emptyDictionary: "[:]"
        }
    }

    /// The case name of a `.member` value.
    var memberName: String? {
        if case .member(let name) = self { return name }
        return nil
    }
}
