/// How a store keeps a field: in a typed column, or as JSON text for types without one.
public enum FieldStorage: Hashable, Sendable {
    /// A typed column (`StorableValue`): built-in scalars, schema enums, and optionals of them.
    case column
    /// JSON text: schema structs, external types, arrays and dictionaries.
    case json
    /// JSON text, NULL for nil: an optional of a JSON type.
    case nullableJSON

    /// The storage of a field of `type`, given the names of the schema's enums.
    static func of(_ type: TypeReference, enums: Set<String>) -> FieldStorage {
        switch type {
        case .named(let name):
            return TypeCatalog.builtins[name] != nil || enums.contains(name) ? .column : .json
        case .optional(let wrapped):
            return of(wrapped, enums: enums) == .column ? .column : .nullableJSON
        case .array, .dictionary:
            return .json
        }
    }
}
