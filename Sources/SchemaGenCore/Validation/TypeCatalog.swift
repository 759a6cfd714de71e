/// What the validator knows about every type name a schema can mention: Swift built-ins,
/// the schema's own enums, structs and entities, and declared `external` types.
struct TypeCatalog {
    struct Traits: Equatable {
        var equatable: Bool
        var hashable: Bool
        var comparable: Bool

        static let all = Traits(equatable: true, hashable: true, comparable: true)
        static let hashableOnly = Traits(equatable: true, hashable: true, comparable: false)
        static let none = Traits(equatable: false, hashable: false, comparable: false)
    }

    /// Codable built-ins and what they conform to. (Bool, UUID, URL and Data are not Comparable.)
    static let builtins: [String: Traits] = {
        var table: [String: Traits] = [:]
        for name in ["String", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
                     "Double", "Float", "Date", "Decimal"] { table[name] = .all }
        for name in ["Bool", "UUID", "URL", "Data"] { table[name] = .hashableOnly }
        return table
    }()

    static let integerTypes: Set<String> = ["Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64"]
    static let floatingTypes: Set<String> = ["Double", "Float", "Decimal"]

    var enums: [String: EnumDeclaration] = [:]
    var structs: [String: StructDeclaration] = [:]
    var entities: [String: EntityDeclaration] = [:]
    var externals: [String: ExternalDeclaration] = [:]

    /// Every name a field type may use, for suggestions.
    var fieldTypeNames: [String] { Array(Self.builtins.keys) + Array(enums.keys) + Array(structs.keys) + Array(externals.keys) }

    func isKnownFieldType(_ name: String) -> Bool {
        Self.builtins[name] != nil || enums[name] != nil || structs[name] != nil || externals[name] != nil
    }

    /// The conformances of a type reference (unknown names have none).
    func traits(of type: TypeReference) -> Traits {
        var visiting: Set<String> = []
        return traits(of: type, visiting: &visiting)
    }

    private func traits(of type: TypeReference, visiting: inout Set<String>) -> Traits {
        switch type {
        case .named(let name):
            if let builtin = Self.builtins[name] { return builtin }
            if enums[name] != nil { return .all }
            if let external = externals[name] {
                let conformances = Set(external.conformances.map(\.value))
                let comparable = conformances.contains(.Comparable)
                let hashable = conformances.contains(.Hashable)
                return Traits(equatable: comparable || hashable || conformances.contains(.Equatable), hashable: hashable, comparable: comparable)
            }
            if let structure = structs[name] {
                guard visiting.insert(name).inserted else { return .hashableOnly }
                defer { visiting.remove(name) }
                var result = Traits.hashableOnly
                for field in structure.fields {
                    let fieldTraits = traits(of: field.type.value, visiting: &visiting)
                    result.equatable = result.equatable && fieldTraits.equatable
                    result.hashable = result.hashable && fieldTraits.hashable
                }
                return result
            }
            return .none
        case .optional(let wrapped):
            return traits(of: wrapped, visiting: &visiting)
        case .array(let element):
            var result = traits(of: element, visiting: &visiting)
            result.comparable = false
            return result
        case .dictionary(_, let value):
            var result = traits(of: value, visiting: &visiting)
            result.comparable = false
            return result
        }
    }

    /// Whether `type` is `String` or `String?`.
    static func isString(_ type: TypeReference) -> Bool { type.unwrapped == .named("String") }
}
