/// Swift spelling rules: which names a schema may use, keywords that must be escaped, and
/// names the generated code owns.
///
/// Every name in a schema (entities, fields, relations, enum cases, index and merge fields,
/// resolvers) follows one rule in both syntaxes: ASCII letters, digits and `_`, not starting
/// with a digit, at most ``maximumLength`` characters. Names become Swift identifiers, coding
/// keys and (with a store) column names, so the rule is the intersection of what all of those
/// accept unchanged; non-ASCII letters would also bring normalization and look-alike problems.
public enum SwiftName {
    /// The longest name a schema may use.
    public static let maximumLength = 128

    /// Why `name` cannot be a schema name, or nil when it can.
    public static func identifierProblem(_ name: String) -> String? {
        if name.isEmpty { return "a name cannot be empty" }
        let scalars = name.unicodeScalars
        if scalars.count > maximumLength {
            return "name of \(scalars.count) characters is too long; names have at most \(maximumLength)"
        }
        if let first = scalars.first, ("0"..."9").contains(first) {
            return "'\(clipped(name))' starts with a digit"
        }
        if let bad = scalars.first(where: { !isNameScalar($0) }) {
            return "'\(clipped(name))' contains \(describe(bad)); names use ASCII letters, digits and '_'"
        }
        return nil
    }

    static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "_": true
        default: false
        }
    }

    /// `'é' (U+00E9)`: a character as a message can show it, invisible ones by code point only.
    static func describe(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        let visible = !SwiftText.needsEscape(scalar) && !scalar.properties.isWhitespace
        return visible ? "'\(scalar)' (\(code))" : code
    }

    /// A name shortened for a message, so a megabyte-long name does not flood the terminal.
    /// Invisible characters are shown escaped, so the message stays on one line.
    static func clipped(_ name: String, to length: Int = 40) -> String {
        let shown = name.unicodeScalars.count <= length ? name : String(String.UnicodeScalarView(name.unicodeScalars.prefix(length))) + "..."
        return SwiftText.comment(shown)
    }

    /// Keywords that need backquotes to be used as identifiers.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer",
        "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where",
        "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try",
        "package", "consume", "borrowing", "consuming", "_",
    ]

    /// Names Swift rejects for a member even in backquotes (`self`, `init`), or that would
    /// make `Entity.name` mean something else (`Type`, `Protocol`).
    static let forbiddenMemberNames: Set<String> = ["self", "Self", "init", "Type", "Protocol", "_"]

    /// `name`, backquoted if it is a keyword. Safe in every position the renderer uses: a
    /// declaration, a reference, after `.` and in a key path.
    public static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// Members generated on every entity; fields and relations cannot take these names.
    static let generatedEntityMembers: Set<String> = [
        "entityName", "relations", "Relations", "indexes", "Indexes", "normalize", "normalized", "save", "delete",
        "patch", "defaultMergeStrategy", "fragmentMergeStrategy", "query", "queryAll", "detach", "willSave",
        "didSave", "willDelete", "didDelete", "CodingKeys", "encode", "filter", "tracksUpdatedAt", "keepsDeletedArchives", "ID",
    ]

    /// Members generated on every enum; cases cannot take these names.
    static let generatedEnumMembers: Set<String> = ["rawValue", "allCases", "indexValue", "declarationOrder", "AllCases", "RawValue", "hashValue"]

    /// Type names that would shadow the runtime or the standard library in generated code.
    static let reservedTypeNames: Set<String> = Set([
        "Context", "Query", "QueryList", "ContextFreeQuery", "ContextFreeQueryList", "EntityEncodingStyle", "ToOne", "ToMany", "MergeStrategy", "Mutual", "OneWay", "Required", "Nullable",
        "DeleteRule", "Nested", "Nesting", "NestedQuery", "EntityKey", "AnyRelation", "LinkSlot", "EntityModelProtocol",
        "ToOneRelationDescriptor", "ToManyRelationDescriptor", "RelationEncodingStrategy", "SchemaRuntime",
        "IndexDescriptor", "IndexField", "TextField", "IndexValue", "IndexKey", "IndexKeyConvertible", "Predicate", "EntityPredicate", "Descending",
        "CollisionResolver", "CollisionPolicy", "QueryPlan", "Deleted", "UniqueConstraintViolation", "InvalidQuery", "TextSearchable",
        "CascadeDeletes", "FieldCodingKey", "RequiredRelationViolation", "TextTokenizer",
        "StoredValue", "StoredType", "StoredValueError", "StorableValue", "StoredField", "StoredRow", "StoredJSON",
        "PersistentEntity", "PersistentSchema", "ChangeSet", "QueryReach", "EntitySource", "GroupedQuery", "AggregateGroup", "MetadataSort", "ContextDocument", "RelationDecodingStrategy", "LinkOrderError", "QueryCursor", "QueryPage",
        "ReadReach", "ContextReader", "ContextFaulter", "FullTextStatistics", "SQLOrderPreserving", "PredicateStructure", "RelatedOrigin",
        "Self", "Any", "Type", "Protocol", "AnyObject", "Optional", "Array", "Dictionary", "Set", "Codable", "Sendable",
        "Encodable", "Decodable", "Encoder", "Decoder", "CodingKey", "KeyedDecodingContainer", "KeyedEncodingContainer",
        "Equatable", "Hashable", "Comparable", "CaseIterable", "Error", "Never", "Void", "Bool", "Character",
        "Substring", "Foundation", "Swift", "Result", "Identifiable", "RawRepresentable", "Sequence", "Collection",
        "Float80", "Float16", "Int128", "UInt128",
    ]).union(TypeCatalog.builtins.keys)
}

/// Swift literal spelling.
enum SwiftLiteral {
    /// A Swift string literal for `value`. Quotes, backslashes and every character that is not
    /// visible text (controls, line and paragraph separators, format characters such as
    /// bidirectional overrides) are escaped, so the literal is one line and reads as it is.
    static func string(_ value: String) -> String {
        var result = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\0": result += "\\0"
            default:
                if SwiftText.needsEscape(scalar) {
                    result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

/// Text written into generated comments.
enum SwiftText {
    /// Whether a scalar could end a comment line, reorder how the line displays, or is
    /// otherwise invisible: such scalars never reach generated code unescaped.
    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .surrogate, .privateUse, .unassigned: true
        default: false
        }
    }

    /// `text` safe inside a `//` comment: one line, each invisible scalar shown as `\u{...}`.
    static func comment(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) {
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
