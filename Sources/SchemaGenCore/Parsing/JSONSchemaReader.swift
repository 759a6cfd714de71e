/// Reads the JSON syntax (`*.schema.json`) into a ``SchemaDocument``.
///
/// The JSON form mirrors the DSL one to one: a `declarations` array whose objects are
/// entities (`"entity": "User"`), enums, structs and externals, in file order. Every problem
/// (unknown keys, wrong value kinds, malformed types) is reported with its location.
/// `docs/schemagen-format.json` describes the format for editors.
public struct JSONSchemaReader {
    private var diagnostics: [Diagnostic] = []
    private let path: String

    private init(path: String) { self.path = path }

    public static func parse(text: String, path: String) -> (SchemaDocument, [Diagnostic]) {
        var reader = JSONSchemaReader(path: path)
        switch JSONParser.parse(text: text, path: path) {
        case .failure(let failure):
            return (SchemaDocument(path: path, declarations: [], incompleteNames: declaredNames(inUnparsable: text)), [failure.diagnostic])
        case .success(let root):
            let document = reader.readDocument(root)
            return (document, reader.diagnostics)
        }
    }

    /// Names a file that is not valid JSON seems to declare (`"entity": "User"`), so other
    /// files' references to them are not reported as unknown on top of the syntax error.
    static func declaredNames(inUnparsable text: String) -> Set<String> {
        var names: Set<String> = []
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func quoted(at start: Int) -> (String, Int)? {
            guard start < scalars.count, scalars[start] == "\"" else { return nil }
            var end = start + 1, value = ""
            while end < scalars.count, scalars[end] != "\"", scalars[end] != "\n" { value.unicodeScalars.append(scalars[end]); end += 1 }
            return end < scalars.count && scalars[end] == "\"" ? (value, end + 1) : nil
        }
        func skipSpace(_ position: Int) -> Int {
            var position = position
            while position < scalars.count, [" ", "\t", "\n", "\r"].contains(scalars[position]) { position += 1 }
            return position
        }
        while index < scalars.count {
            guard let (key, afterKey) = quoted(at: index) else { index += 1; continue }
            index = afterKey
            guard ["entity", "enum", "struct", "external"].contains(key) else { continue }
            let colon = skipSpace(afterKey)
            guard colon < scalars.count, scalars[colon] == ":", let (name, afterName) = quoted(at: skipSpace(colon + 1)) else { continue }
            names.insert(name)
            index = afterName
        }
        return names
    }

    // MARK: Helpers

    private mutating func error(_ message: String, at location: SourceLocation, hint: String? = nil) {
        diagnostics.append(.error(message, at: location, hint: hint))
    }

    /// The members of an object, reporting keys outside `allowed`.
    private mutating func members(_ value: JSONValue, _ what: String, allowed: [String]) -> [String: JSONValue]? {
        guard case .object(let pairs, _) = value else {
            error("expected \(what) to be an object, found \(value.kindDescription)", at: value.location)
            return nil
        }
        var result: [String: JSONValue] = [:]
        for (key, member) in pairs {
            if !allowed.contains(key.value) {
                error("unknown key '\(key.value)' in \(what)", at: key.location,
                      hint: Suggestion.didYouMean(key.value, in: allowed) ?? "allowed keys: " + allowed.joined(separator: ", "))
            } else if result[key.value] != nil {
                error("duplicate key '\(key.value)' in \(what)", at: key.location)
            } else {
                result[key.value] = member
            }
        }
        return result
    }

    private mutating func string(_ value: JSONValue?, _ what: String) -> Located<String>? {
        guard let value else { return nil }
        guard case .string(let text, let location) = value else {
            error("expected \(what) to be a string, found \(value.kindDescription)", at: value.location)
            return nil
        }
        return Located(text, at: location)
    }

    /// A string that names something (an entity, field, case...), checked against the one
    /// naming rule both syntaxes share. A bad name is reported and kept, so validation goes on.
    private mutating func identifier(_ value: JSONValue?, _ what: String) -> Located<String>? {
        guard let text = string(value, what) else { return nil }
        if let problem = SwiftName.identifierProblem(text.value) {
            error(problem, at: text.location, hint: "\(what) becomes a Swift identifier; write it like \"userName\"")
        }
        return text
    }

    private mutating func bool(_ value: JSONValue?, _ what: String) -> Bool? {
        guard let value else { return nil }
        guard case .bool(let flag, _) = value else {
            error("expected \(what) to be true or false, found \(value.kindDescription)", at: value.location)
            return nil
        }
        return flag
    }

    private mutating func array(_ value: JSONValue?, _ what: String) -> [JSONValue] {
        guard let value else { return [] }
        guard case .array(let elements, _) = value else {
            error("expected \(what) to be an array, found \(value.kindDescription)", at: value.location)
            return []
        }
        return elements
    }

    /// `"renamedFrom": "oldName"` or `["oldName", "olderName"]`.
    private mutating func formerNames(_ value: JSONValue?) -> [Located<String>] {
        guard let value else { return [] }
        switch value {
        case .string: return identifier(value, "'renamedFrom'").map { [$0] } ?? []
        case .array(let elements, _): return elements.compactMap { identifier($0, "a former name in 'renamedFrom'") }
        default:
            error("expected 'renamedFrom' to be a name or an array of names, found \(value.kindDescription)", at: value.location,
                  hint: "write \"renamedFrom\": \"oldName\" or [\"oldName\", \"olderName\"]")
            return []
        }
    }

    private mutating func documentation(_ value: JSONValue?) -> [String] {
        guard let value else { return [] }
        if case .string(let text, _) = value { return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        return array(value, "'doc'").compactMap { string($0, "a 'doc' line")?.value }
    }

    private mutating func access(_ value: JSONValue?) -> AccessLevel {
        guard let text = string(value, "'access'") else { return .internal }
        guard let level = AccessLevel(rawValue: text.value) else {
            error("unknown access level '\(text.value)'", at: text.location, hint: "use 'internal', 'package' or 'public'")
            return .internal
        }
        return level
    }

    // MARK: Document

    mutating func readDocument(_ root: JSONValue) -> SchemaDocument {
        guard let top = members(root, "the schema document", allowed: ["$schema", "namespace", "aliases", "declarations"]) else {
            return SchemaDocument(path: path, declarations: [])
        }
        var declarations: [Declaration] = []
        var incomplete: Set<String> = []
        for element in array(top["declarations"], "'declarations'") {
            let problems = diagnostics.count
            let declaration = readDeclaration(element)
            if let declaration { declarations.append(declaration) }
            if diagnostics.count > problems, case .object(let pairs, _) = element {
                // Anything reported inside may have dropped a member the rest of the schema uses.
                for (key, value) in pairs where ["entity", "enum", "struct", "external"].contains(key.value) {
                    if case .string(let name, _) = value { incomplete.insert(name) }
                }
            }
        }
        var document = SchemaDocument(path: path, declarations: declarations, incompleteNames: incomplete)
        if let namespace = string(top["namespace"], "'namespace'") {
            document.namespace = Located(namespace.value.split(separator: ".", omittingEmptySubsequences: false).map(String.init), at: namespace.location)
        }
        if let aliases = top["aliases"] {
            // {"RichProperty": "IndexedRichProperty"}: the name in the namespace, then the type.
            if case .object(let pairs, _) = aliases {
                for (name, value) in pairs {
                    if let problem = SwiftName.identifierProblem(name.value) {
                        error(problem, at: name.location, hint: "an alias becomes a Swift typealias name")
                    }
                    if let target = identifier(value, "the type alias '\(name.value)' names") {
                        document.aliases.append(NamespaceAlias(name: name, target: target))
                    }
                }
            } else {
                error("expected 'aliases' to be an object, found \(aliases.kindDescription)", at: aliases.location,
                      hint: "write e.g. \"aliases\": {\"RichProperty\": \"IndexedRichProperty\"}")
            }
        }
        return document
    }

    private mutating func readDeclaration(_ value: JSONValue) -> Declaration? {
        guard case .object(let pairs, let location) = value else {
            error("expected a declaration object, found \(value.kindDescription)", at: value.location)
            return nil
        }
        let kinds = ["entity", "enum", "struct", "external"]
        let present = pairs.map(\.key.value).filter(kinds.contains)
        guard present.count == 1, let kind = present.first else {
            error(present.isEmpty ? "declaration has no 'entity', 'enum', 'struct' or 'external' key" : "declaration has more than one of 'entity', 'enum', 'struct', 'external'",
                  at: location, hint: "write e.g. {\"entity\": \"User\", ...}")
            return nil
        }
        switch kind {
        case "entity": return readEntity(value).map(Declaration.entity)
        case "enum": return readEnum(value).map(Declaration.enumeration)
        case "struct": return readStruct(value).map(Declaration.structure)
        default: return readExternal(value).map(Declaration.external)
        }
    }

    private mutating func readEntity(_ value: JSONValue) -> EntityDeclaration? {
        guard let object = members(value, "entity", allowed: ["entity", "access", "doc", "renamedFrom", "fields", "relations", "indexes", "merge", "metadata"]),
              let name = identifier(object["entity"], "'entity'") else { return nil }
        var entity = EntityDeclaration(name: name, location: value.location)
        entity.access = access(object["access"])
        entity.documentation = documentation(object["doc"])
        entity.renamedFrom = formerNames(object["renamedFrom"])
        entity.fields = array(object["fields"], "'fields'").compactMap { readField($0) }
        entity.relations = array(object["relations"], "'relations'").compactMap { readRelation($0) }
        entity.indexes = array(object["indexes"], "'indexes'").compactMap { readIndex($0) }
        if let merge = object["merge"], let slots = members(merge, "'merge'", allowed: ["default", "fragment"]) {
            for which in [MergeDeclaration.Which.default, .fragment] {
                guard let rules = slots[which.rawValue] else { continue }
                entity.mergeRules.append(MergeDeclaration(which: which, rules: array(rules, "merge rules").compactMap { readMergeRule($0) }, location: rules.location))
            }
        }
        for item in array(object["metadata"], "'metadata'") {
            guard let text = string(item, "a metadata name") else { continue }
            if text.value == "updatedAt" {
                entity.tracksUpdatedAt = Located(true, at: text.location)
            } else if text.value == "softDelete" {
                entity.keepsDeletedArchives = Located(true, at: text.location)
            } else {
                error("unknown metadata '\(text.value)'", at: text.location, hint: "metadata is 'updatedAt' or 'softDelete'")
            }
        }
        return entity
    }

    private mutating func readType(_ value: JSONValue?, _ owner: String, at location: SourceLocation) -> Located<TypeReference>? {
        guard let value else {
            error("\(owner) has no 'type'", at: location)
            return nil
        }
        guard let text = string(value, "'type'") else { return nil }
        let (type, problems) = DSLParser.parseType(text.value, at: text.location)
        diagnostics.append(contentsOf: problems)
        return type.map { Located($0, at: text.location) }
    }

    private mutating func readField(_ value: JSONValue) -> FieldDeclaration? {
        guard let object = members(value, "field", allowed: ["let", "var", "type", "default", "doc", "renamedFrom"]) else { return nil }
        let isMutable = object["var"] != nil
        guard (object["let"] != nil) != isMutable else {
            error("a field needs exactly one of 'let' or 'var' naming it", at: value.location, hint: "write {\"let\": \"id\", \"type\": \"String\"}")
            return nil
        }
        guard let name = identifier(object[isMutable ? "var" : "let"], "the field name") else { return nil }
        let type = readType(object["type"], "field '\(name.value)'", at: value.location) ?? Located(.invalid, at: value.location)
        var field = FieldDeclaration(name: name, type: type, isMutable: isMutable)
        field.documentation = documentation(object["doc"])
        field.renamedFrom = formerNames(object["renamedFrom"])
        if let defaultValue = object["default"], let parsed = readDefault(defaultValue) {
            field.defaultValue = Located(parsed, at: defaultValue.location)
        }
        return field
    }

    private mutating func readDefault(_ value: JSONValue) -> DefaultValue? {
        switch value {
        case .string(let text, _): return .string(text)
        case .number(let text, _): return text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) ? .float(text) : .integer(text)
        case .bool(let flag, _): return .bool(flag)
        case .null: return .nil
        case .array(let elements, _): return .array(elements.compactMap { readDefault($0) })
        case .object(let pairs, let location):
            if pairs.isEmpty { return .emptyDictionary }
            guard let object = members(value, "default value", allowed: ["case"]),
                  let name = identifier(object["case"], "'case'") else {
                error("object default values are {\"case\": \"name\"} or {} (an empty dictionary)", at: location)
                return nil
            }
            return .member(name.value)
        }
    }

    private mutating func readRelation(_ value: JSONValue) -> RelationDeclaration? {
        guard let object = members(value, "relation", allowed: ["relation", "target", "toMany", "required", "inverse", "onDelete", "doc", "renamedFrom"]),
              let name = identifier(object["relation"], "the relation name") else { return nil }
        guard let target = identifier(object["target"], "'target'") else {
            error("relation '\(name.value)' has no 'target'", at: value.location, hint: "name the related entity: \"target\": \"User\"")
            return nil
        }
        var relation = RelationDeclaration(name: name, target: target, isToMany: bool(object["toMany"], "'toMany'") ?? false)
        if let required = object["required"], bool(required, "'required'") == true {
            relation.isRequired = Located(true, at: required.location)
        }
        relation.inverse = identifier(object["inverse"], "'inverse'")
        if let rule = string(object["onDelete"], "'onDelete'") {
            if let parsed = RelationDeclaration.DeleteRule(rawValue: rule.value) {
                relation.deleteRule = parsed
            } else {
                error("unknown delete rule '\(rule.value)'", at: rule.location, hint: "use 'cascade' or 'nullify'")
            }
        }
        relation.documentation = documentation(object["doc"])
        relation.renamedFrom = formerNames(object["renamedFrom"])
        return relation
    }

    private mutating func readIndex(_ value: JSONValue) -> IndexDeclaration? {
        guard let object = members(value, "index", allowed: ["kind", "fields", "onCollision"]),
              let kindText = string(object["kind"], "'kind'") else {
            if case .object = value { error("index has no 'kind'", at: value.location, hint: "kinds are 'ordered', 'hash', 'unique' and 'fulltext'") }
            return nil
        }
        guard let kind = IndexDeclaration.Kind(rawValue: kindText.value) else {
            error("unknown index kind '\(kindText.value)'", at: kindText.location,
                  hint: Suggestion.didYouMean(kindText.value, in: IndexDeclaration.Kind.allCases.map(\.rawValue)) ?? "kinds are 'ordered', 'hash', 'unique' and 'fulltext'")
            return nil
        }
        var index = IndexDeclaration(kind: Located(kind, at: kindText.location), fields: [], location: value.location)
        for field in array(object["fields"], "'fields'") {
            if case .object = field {
                guard let spec = members(field, "index field", allowed: ["name", "descending"]),
                      let name = identifier(spec["name"], "'name'") else { continue }
                index.fields.append(.init(name: name, descending: bool(spec["descending"], "'descending'") ?? false))
            } else if let name = identifier(field, "an index field") {
                index.fields.append(.init(name: name))
            }
        }
        if let policy = identifier(object["onCollision"], "'onCollision'") {
            let collision: IndexDeclaration.Collision = switch policy.value {
            case "throw": .throw
            case "upsert": .upsert
            default: .resolver(policy.value)
            }
            index.collision = Located(collision, at: policy.location)
        }
        return index
    }

    private mutating func readMergeRule(_ value: JSONValue) -> MergeDeclaration.Rule? {
        let kindName: Located<String>
        var fields: [Located<String>] = []
        switch value {
        case .string(let text, let location):
            kindName = Located(text, at: location)
        case .object(let pairs, let location) where pairs.count == 1:
            kindName = Located(pairs[0].key.value, at: pairs[0].key.location)
            switch pairs[0].value {
            case .string: fields = identifier(pairs[0].value, "a merge field").map { [$0] } ?? []
            default: fields = array(pairs[0].value, "merge rule fields").compactMap { identifier($0, "a merge field") }
            }
            _ = location
        default:
            error("expected a merge rule: \"replace\", \"patch\" or {\"patch\": [fields]}", at: value.location)
            return nil
        }
        guard let kind = MergeDeclaration.Rule.Kind(rawValue: kindName.value) else {
            error("unknown merge rule '\(kindName.value)'", at: kindName.location,
                  hint: Suggestion.didYouMean(kindName.value, in: MergeDeclaration.Rule.Kind.allCases.map(\.rawValue)) ?? "merge rules are 'replace', 'patch', 'append' and 'lastWriteWins'")
            return nil
        }
        return MergeDeclaration.Rule(kind: kind, fields: fields, location: kindName.location)
    }

    private mutating func readEnum(_ value: JSONValue) -> EnumDeclaration? {
        guard let object = members(value, "enum", allowed: ["enum", "access", "doc", "rawType", "cases"]),
              let name = identifier(object["enum"], "'enum'") else { return nil }
        guard let rawType = string(object["rawType"], "'rawType'") else {
            error("enum '\(name.value)' has no 'rawType'", at: value.location, hint: "enums declare \"rawType\": \"String\" or \"Int\"")
            return nil
        }
        var declaration = EnumDeclaration(name: name, rawType: rawType)
        declaration.access = access(object["access"])
        declaration.documentation = documentation(object["doc"])
        for item in array(object["cases"], "'cases'") {
            if case .object = item {
                guard let spec = members(item, "enum case", allowed: ["name", "rawValue", "doc"]),
                      let caseName = identifier(spec["name"], "'name'") else { continue }
                var enumCase = EnumDeclaration.Case(name: caseName, documentation: documentation(spec["doc"]))
                if let raw = spec["rawValue"], let parsed = readDefault(raw) { enumCase.rawValue = Located(parsed, at: raw.location) }
                declaration.cases.append(enumCase)
            } else if let caseName = identifier(item, "an enum case") {
                declaration.cases.append(.init(name: caseName))
            }
        }
        return declaration
    }

    private mutating func readStruct(_ value: JSONValue) -> StructDeclaration? {
        guard let object = members(value, "struct", allowed: ["struct", "access", "doc", "fields"]),
              let name = identifier(object["struct"], "'struct'") else { return nil }
        var declaration = StructDeclaration(name: name)
        declaration.access = access(object["access"])
        declaration.documentation = documentation(object["doc"])
        declaration.fields = array(object["fields"], "'fields'").compactMap { readField($0) }
        return declaration
    }

    private mutating func readExternal(_ value: JSONValue) -> ExternalDeclaration? {
        guard let object = members(value, "external", allowed: ["external", "conformances"]),
              let name = identifier(object["external"], "'external'") else { return nil }
        var declaration = ExternalDeclaration(name: name)
        for item in array(object["conformances"], "'conformances'") {
            guard let text = string(item, "a conformance") else { continue }
            guard let conformance = ExternalDeclaration.Conformance(rawValue: text.value) else {
                error("unsupported conformance '\(text.value)' for external type '\(name.value)'", at: text.location,
                      hint: "external types are always Codable & Sendable; list 'Equatable', 'Hashable' or 'Comparable' when they conform")
                continue
            }
            declaration.conformances.append(Located(conformance, at: text.location))
        }
        return declaration
    }
}
