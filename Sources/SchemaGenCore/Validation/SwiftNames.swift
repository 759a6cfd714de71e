/// Swift spelling rules: keywords that must be escaped, and names the generated code owns.
public enum SwiftName {
    /// Keywords that need backquotes to be used as identifiers.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer",
        "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where",
        "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try",
        "package", "consume", "borrowing", "consuming",
    ]

    /// `name`, backquoted if it is a keyword.
    public static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// Members generated on every entity; fields and relations cannot take these names.
    static let generatedEntityMembers: Set<String> = [
        "entityName", "relations", "Relations", "indexes", "Indexes", "normalize", "normalized", "save", "delete",
        "patch", "defaultMergeStrategy", "fragmentMergeStrategy", "query", "queryAll", "detach", "willSave",
        "didSave", "willDelete", "didDelete", "CodingKeys", "encode", "filter",
    ]

    /// Type names that would shadow the runtime or the standard library in generated code.
    static let reservedTypeNames: Set<String> = Set([
        "Context", "Query", "QueryList", "ToOne", "ToMany", "MergeStrategy", "Mutual", "OneWay", "Required", "Nullable",
        "DeleteRule", "Nested", "Nesting", "NestedQuery", "EntityKey", "AnyRelation", "LinkSlot", "EntityModelProtocol",
        "ToOneRelationDescriptor", "ToManyRelationDescriptor", "RelationEncodingStrategy", "SchemaRuntime",
        "IndexDescriptor", "IndexField", "TextField", "IndexValue", "IndexKey", "IndexKeyConvertible", "Predicate", "Descending",
        "CollisionResolver", "CollisionPolicy", "QueryPlan", "Deleted", "UniqueConstraintViolation", "InvalidQuery",
        "Self", "Any", "Type", "Protocol", "AnyObject", "Optional", "Array", "Dictionary", "Set", "Codable", "Sendable",
    ]).union(TypeCatalog.builtins.keys)
}

/// Swift literal spelling.
enum SwiftLiteral {
    /// A Swift string literal for `value`, escaping quotes, backslashes and control characters.
    static func string(_ value: String) -> String {
        var result = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 { result += "\\u{\(String(scalar.value, radix: 16))}" } else { result.unicodeScalars.append(scalar) }
            }
        }
        return result + "\""
    }
}
