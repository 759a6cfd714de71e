/// A Swift type as written in a schema: `String`, `[Tag]`, `[String: Int]?`.
public indirect enum TypeReference: Hashable, Sendable, CustomStringConvertible {
    case named(String)
    case optional(TypeReference)
    case array(TypeReference)
    case dictionary(key: TypeReference, value: TypeReference)

    public var description: String {
        switch self {
        case .named(let name): name
        case .optional(let wrapped): "\(wrapped)?"
        case .array(let element): "[\(element)]"
        case .dictionary(let key, let value): "[\(key): \(value)]"
        }
    }

    /// Stands in for a type that failed to parse (already reported), so the field is kept and
    /// no follow-on error ("entity has no 'id'") is reported about it.
    public static let invalid = TypeReference.named("")

    public var isOptional: Bool {
        if case .optional = self { return true }
        return false
    }

    /// The type without one level of optionality.
    public var unwrapped: TypeReference {
        if case .optional(let wrapped) = self { return wrapped }
        return self
    }

    /// The same shape with every named type passed through `rename`.
    func renamingTypes(_ rename: (String) -> String) -> TypeReference {
        switch self {
        case .named(let name): .named(rename(name))
        case .optional(let wrapped): .optional(wrapped.renamingTypes(rename))
        case .array(let element): .array(element.renamingTypes(rename))
        case .dictionary(let key, let value): .dictionary(key: key.renamingTypes(rename), value: value.renamingTypes(rename))
        }
    }

    /// Every named type this reference mentions.
    public var namedTypes: [String] {
        switch self {
        case .named(let name): [name]
        case .optional(let wrapped): wrapped.namedTypes
        case .array(let element): element.namedTypes
        case .dictionary(let key, let value): key.namedTypes + value.namedTypes
        }
    }
}
