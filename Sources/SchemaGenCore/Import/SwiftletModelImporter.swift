/// Reads SwiftletModel models (`@EntityModel` structs with `@Relationship`, `@Index`,
/// `@Unique`, `@FullTextIndex` and merge strategies) and writes the schema declarations that
/// generate the same types. See ``SwiftletModelImport``.
struct SwiftletModelImporter {
    /// One input file, scanned.
    struct Input {
        let path: String
        let scanner: SwiftScanner
        let tokens: [SwiftToken]
        let declarations: [SwiftDeclaration]
        var reader: SwiftDeclarationReader { SwiftDeclarationReader(tokens: tokens) }
    }

    static let builtinTypes: Set<String> = [
        "String", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64",
        "Double", "Float", "Bool", "Date", "UUID", "URL", "Data", "Decimal",
    ]

    let options: SwiftletModelImport.Options
    var inputs: [Input] = []
    var diagnostics = Diagnostics()
    /// Every struct and enum any input declares, by qualified name (`Status`, `Order.Status`):
    /// its inheritance list.
    var declaredTypes: [String: [String]] = [:]
    /// Enums converted to schema enums (with their input index), by name.
    var schemaEnums: [String: Int] = [:]
    /// External types already declared, so each is declared once.
    var externals: Set<String> = []
    /// Types declared inside another type (`User.Profile`): name -> every enclosing type's
    /// qualified name (two models may each declare a `Status`). A schema names types at the
    /// top level, so these get a typealias (`UserProfile`, `OrderStatus`).
    var enclosingTypes: [String: Set<String>] = [:]
    /// Types declared at the top level of some input.
    var topLevelTypes: Set<String> = []
    /// Each entity's qualified name, where its field types are looked up (`Models.User`), by
    /// its schema name.
    var entityScopes: [String: String] = [:]
    /// Every `@EntityModel` struct's qualified name, by its own name: two namespaces may each
    /// declare a `RichProperty`.
    var entityDeclarations: [String: [String]] = [:]
    /// Entities whose name another namespace's entity also has: qualified name -> schema name
    /// (`Indexed.RichProperty` -> `IndexedRichProperty`, aliased `RichProperty` in `Indexed`).
    var entityRenames: [String: String] = [:]
    /// Typealiases for nested types already written into a kept file: each is written once.
    var declaredAliases: Set<String> = []
    /// `IndexKeyConvertible` conformances already written into a kept file: each is written once.
    var declaredConformances: Set<String> = []
    /// Generic field types named through an alias: alias -> the generic spelling.
    var genericAliases: [String: String] = [:]

    init(sources: [SchemaSource], options: SwiftletModelImport.Options) {
        self.options = options
        for source in sources {
            var scanner = SwiftScanner(text: source.text, path: source.path)
            let tokens = scanner.tokenize()
            let declarations = SwiftDeclarationReader(tokens: tokens).declarations(in: 0..<tokens.count)
            inputs.append(Input(path: source.path, scanner: scanner, tokens: tokens, declarations: declarations))
        }
    }

    mutating func run() -> SwiftletModelImport {
        // Types first, across files: field types refer to them.
        for (position, input) in inputs.enumerated() {
            collectTypes(input.declarations, enclosing: nil, in: input)
            for declaration in input.declarations where declaration.keyword == "enum" {
                if let name = declaration.name, simpleEnum(declaration, in: input) != nil { schemaEnums[name] = position }
            }
        }
        nameEntities()
        var files: [SwiftletModelImport.File] = []
        for input in inputs { files.append(contentsOf: convert(input)) }
        // Validate the schemas together, as the build plugin will.
        let documents = files.compactMap(\.schema)
        if !documents.isEmpty {
            let (_, problems) = SchemaValidator.validate(documents)
            // A model of another file that was not converted with these: say so.
            let declared = Set(documents.flatMap(\.declarations).map(\.name.value))
            diagnostics.append(contentsOf: problems.map { problem in
                guard problem.message.hasPrefix("unknown entity '"), let name = problem.message.split(separator: "'").dropFirst().first,
                      !declared.contains(String(name)) else { return problem }
                var located = problem
                located.hint = (problem.hint.map { $0 + "; or " } ?? "")
                    + "if '\(name)' is a model in another file, convert that file in the same command (schemagen convert --from swiftletmodel A.swift B.swift ...): relations between files are checked together"
                return located
            })
        }
        return SwiftletModelImport(files: files, diagnostics: diagnostics.sorted)
    }

    private mutating func collectTypes(_ declarations: [SwiftDeclaration], enclosing: String?, in input: Input) {
        for declaration in declarations {
            if ["struct", "enum", "class"].contains(declaration.keyword), let name = declaration.name {
                let qualified = enclosing.map { $0 + "." + name } ?? name
                declaredTypes[qualified] = inheritance(of: declaration, in: input)
                if declaration.attribute("EntityModel") != nil { entityDeclarations[name, default: []].append(qualified) }
                // Entities are generated at the top level even inside a namespace.
                if let enclosing, declaration.attribute("EntityModel") == nil {
                    enclosingTypes[name, default: []].insert(enclosing)
                } else {
                    topLevelTypes.insert(name)
                    if enclosing != nil { declaredTypes[name] = declaredTypes[qualified] }
                }
            }
            if let body = declaration.body, ["extension", "struct", "enum"].contains(declaration.keyword) {
                var name = declaration.name ?? ""
                var index = declaration.keywordIndex + 2
                while index + 1 < input.tokens.count, input.tokens[index].isPunctuation("."), input.tokens[index + 1].kind == .identifier {
                    name += "." + input.tokens[index + 1].text
                    index += 2
                }
                collectTypes(input.reader.declarations(in: body), enclosing: name, in: input)
            }
        }
    }

    /// Names the entities: its own name for each, unless entities of several namespaces share
    /// it; those are named after their namespace too (`Indexed.RichProperty` ->
    /// `IndexedRichProperty`, a top-level one keeping the plain name), and the namespace
    /// gets an alias with the plain name.
    mutating func nameEntities() {
        for (name, qualifiedNames) in entityDeclarations {
            let shared = Set(qualifiedNames).count > 1
            for qualified in qualifiedNames {
                let schemaName = shared && qualified != name ? qualified.replacingOccurrences(of: ".", with: "") : name
                if schemaName != name { entityRenames[qualified] = schemaName }
                entityScopes[schemaName] = qualified
            }
        }
    }

    /// `entity` under its schema name, its relations naming their targets' schema names, and
    /// for an entity renamed after its `namespace`, the alias that keeps its own name there.
    func named(_ entity: EntityDeclaration, in namespace: [String]) -> (EntityDeclaration, NamespaceAlias?) {
        var named = entity
        var alias: NamespaceAlias?
        if let renamed = entityRenames[(namespace + [entity.name.value]).joined(separator: ".")] {
            alias = NamespaceAlias(name: entity.name, target: Located(renamed, at: entity.name.location))
            named.name.value = renamed
        }
        for index in named.relations.indices {
            named.relations[index].target.value = schemaEntityName(named.relations[index].target.value, from: named.name.value)
        }
        return (named, alias)
    }

    /// The schema name of the entity a relation of `owner` (a schema name) names `target`, as
    /// Swift finds it from inside the owner: a renamed entity in the owner's scope or one
    /// around it, a qualified name (`NotIndexed.RichProperty`), else the name as written.
    func schemaEntityName(_ target: String, from owner: String) -> String {
        if let renamed = entityRenames[target] { return renamed }
        if target.contains(".") {
            // `Models.User` of an entity not renamed: the schema names it `User`.
            let last = String(target[target.index(after: target.lastIndex(of: ".")!)...])
            return entityDeclarations[last] != nil ? last : target
        }
        var scope = entityScopes[owner] ?? owner
        while true {
            if let renamed = entityRenames[scope + "." + target] { return renamed }
            guard let dot = scope.lastIndex(of: ".") else { break }
            scope = String(scope[..<dot])
        }
        return target
    }

    /// The type a field of `entity` names `name`, as Swift finds it from inside the entity:
    /// nested in the entity, then in each type around it, then at the top level. Returns the
    /// enclosing type's qualified name, nil for a top-level (or unknown) type.
    func enclosing(of name: String, inEntity entity: String) -> String? {
        guard let scopes = enclosingTypes[name] else { return nil }
        var scope = entityScopes[entity] ?? entity
        while true {
            if scopes.contains(scope) { return scope }
            guard let dot = scope.lastIndex(of: ".") else { break }
            scope = String(scope[..<dot])
        }
        if topLevelTypes.contains(name) { return nil }
        // Declared nested elsewhere only: the field names it through its qualified name, or
        // the one place it is declared.
        return scopes.count == 1 ? scopes.first : nil
    }

    /// The schema's name for a field type of `entity` named `name`: itself, or for a nested
    /// type the alias the kept Swift declares (`User.Profile` -> `UserProfile`).
    func schemaTypeName(_ name: String, inEntity entity: String) -> String {
        guard let enclosing = enclosing(of: name, inEntity: entity) else { return name }
        return enclosing.replacingOccurrences(of: ".", with: "") + name
    }

    /// The inheritance list of the type a field of `entity` names `name`.
    func declaredInheritance(of name: String, inEntity entity: String) -> [String]? {
        declaredTypes[enclosing(of: name, inEntity: entity).map { $0 + "." + name } ?? name]
    }

    /// `struct User: Codable, Hashable` -> ["Codable", "Hashable"].
    private func inheritance(of declaration: SwiftDeclaration, in input: Input) -> [String] {
        var start = declaration.keywordIndex + 2
        // Past a generic parameter clause (`struct Box<Value: Comparable>: Codable`).
        if start < input.tokens.count, input.tokens[start].isPunctuation("<") {
            var depth = 0
            while start <= declaration.tokens.upperBound {
                if input.tokens[start].isPunctuation("<") { depth += 1 }
                if input.tokens[start].isPunctuation(">") { depth -= 1; if depth == 0 { start += 1; break } }
                start += 1
            }
        }
        guard start < input.tokens.count, input.tokens[start].isPunctuation(":") else { return [] }
        var names: [String] = []
        var index = start + 1
        while index <= declaration.tokens.upperBound, !input.tokens[index].isPunctuation("{"), !input.tokens[index].isIdentifier("where") {
            if input.tokens[index].kind == .identifier { names.append(input.tokens[index].text) }
            index += 1
        }
        return names
    }

    // MARK: Files

    /// The schema file (and kept Swift) of one input, plus a schema file per further
    /// namespace it declares models in (`Models+NotIndexed.schema`): a schema file has one.
    private mutating func convert(_ input: Input) -> [SwiftletModelImport.File] {
        // Named as the schema file it becomes (`Models.swift` -> `Models.schema`), so checks of
        // generated file names name those files; its declarations stay located in the Swift.
        var document = SchemaDocument(path: Self.schemaPath(for: input.path), declarations: [])
        var namespaced: [SchemaDocument] = []
        var kept: [String] = []
        var imports: [String] = []
        for declaration in input.declarations {
            switch declaration.keyword {
            case "import":
                let module = declaration.name ?? ""
                if module != "SwiftletModel", module != "Foundation" { imports.append("import \(module)") }
            case "struct" where declaration.attribute("EntityModel") != nil && input.tokens[declaration.keywordIndex + 2].isPunctuation("<"):
                // A store keeps one table per entity type, so a generic model is not an entity.
                let name = declaration.name ?? "?"
                diagnostics.error("generic entity '\(text(declaration.keywordIndex + 1...declaration.keywordIndex + 2, in: input))...>' cannot become a schema entity",
                                  at: input.tokens[declaration.keywordIndex + 1].location,
                                  hint: "a store keeps one table per entity type: declare one entity per type it is used with (\(name)<Image> -> Image\(name)), or keep it in Swift as a value type without @EntityModel")
            case "struct" where declaration.attribute("EntityModel") != nil && isSchemaRoot(declaration, in: input):
                kept.append(schemaRoot(declaration, in: input))
            case "struct" where declaration.attribute("EntityModel") != nil:
                let (converted, members) = convertEntity(declaration, in: input)
                let (entity, _) = named(converted, in: [])
                document.declarations.append(.entity(entity))
                if !members.isEmpty {
                    kept.append("extension \(entity.name.value) {\n" + members.joined(separator: "\n\n") + "\n}")
                }
            case "enum" where declaration.name.map { schemaEnums[$0] != nil } ?? false:
                document.declarations.append(.enumeration(simpleEnum(declaration, in: input)!))
            case "extension" where containsEntities(declaration, in: input), "enum" where containsEntities(declaration, in: input):
                // A namespace (`extension Schema.V1 { @EntityModel struct User ... }`): entities are
                // generated at the top level; the rest of the namespace stays in Swift.
                var others: [String] = []
                let namespace = dottedName(after: declaration.keywordIndex, in: input)
                for member in input.reader.declarations(in: declaration.body!) {
                    if member.keyword == "struct", member.attribute("EntityModel") != nil {
                        let (converted, members) = convertEntity(member, in: input)
                        let (entity, alias) = named(converted, in: namespace)
                        let location = Located(namespace, at: input.tokens[declaration.keywordIndex].location)
                        if document.namespace == nil || document.namespace?.value == namespace {
                            // The schema's `namespace` line: the entity is also `Namespace.Name`.
                            document.namespace = location
                            document.declarations.append(.entity(entity))
                            document.aliases += alias.map { [$0] } ?? []
                        } else if let position = namespaced.firstIndex(where: { $0.namespace?.value == namespace }) {
                            namespaced[position].declarations.append(.entity(entity))
                            namespaced[position].aliases += alias.map { [$0] } ?? []
                        } else {
                            // Another namespace: a schema file of its own.
                            let stem = Self.schemaStem(for: input.path) + "+" + namespace.joined()
                            var other = SchemaDocument(path: Self.schemaPath(forStem: stem, beside: input.path), declarations: [.entity(entity)])
                            other.namespace = location
                            other.aliases = alias.map { [$0] } ?? []
                            namespaced.append(other)
                        }
                        if !members.isEmpty { kept.append("extension \(entity.name.value) {\n" + members.joined(separator: "\n\n") + "\n}") }
                    } else {
                        others.append(Self.indented(verbatim(member, in: input)))
                    }
                }
                let header = text(declaration.tokens.lowerBound...(declaration.body!.lowerBound - 1), in: input)
                if !others.isEmpty { kept.append(header + "\n" + others.joined(separator: "\n\n") + "\n}") }
            default:
                kept.append(verbatim(declaration, in: input))
            }
        }
        var documents = [document] + namespaced
        // Nested types are named through a typealias the kept Swift declares.
        var aliases: [String] = []
        // Schema name -> the qualified Swift type it stands for.
        var qualifiedNames: [String: String] = [:]
        for d in documents.indices {
        for (position, declaration) in documents[d].declarations.enumerated() {
            guard case .entity(var entity) = declaration else { continue }
            let owner = entity.name.value
            for (index, field) in entity.fields.enumerated() {
                let renamed = field.type.value.renamingTypes { schemaTypeName($0, inEntity: owner) }
                guard renamed != field.type.value else { continue }
                for name in field.type.value.namedTypes {
                    guard let enclosing = enclosing(of: name, inEntity: owner) else { continue }
                    let schemaName = schemaTypeName(name, inEntity: owner)
                    qualifiedNames[schemaName] = enclosing + "." + name
                    let alias = "typealias \(schemaName) = \(enclosing).\(name)"
                    // One alias per name across the converted files: the first file declaring it.
                    if !aliases.contains(alias), declaredAliases.insert(alias).inserted { aliases.append(alias) }
                }
                entity.fields[index].type = Located(renamed, at: field.type.location)
            }
            documents[d].declarations[position] = .entity(entity)
        }
        }
        for case .entity(let entity) in documents.flatMap(\.declarations) {
            for field in entity.fields {
                for name in field.type.value.namedTypes {
                    guard let spelling = genericAliases[name] else { continue }
                    let alias = "typealias \(name) = \(spelling)"
                    if !aliases.contains(alias), declaredAliases.insert(alias).inserted { aliases.append(alias) }
                    // The alias has the generic type's conformances.
                    let base = String(spelling[..<spelling.firstIndex(of: "<")!])
                    if declaredTypes[name] == nil { declaredTypes[name] = declaredTypes[base] }
                }
            }
        }
        if !aliases.isEmpty {
            kept.append("// Schemas name types at the top level; these name the nested and generic ones the entities use.\n"
                        + aliases.joined(separator: "\n"))
        }
        // Types the entities use that stay in Swift.
        var indexConformances: [String] = []
        for d in documents.indices {
        for case .entity(let entity) in documents[d].declarations {
            for field in entity.fields {
                for name in field.type.value.namedTypes where !Self.builtinTypes.contains(name) && schemaEnums[name] == nil {
                    guard externals.insert(name).inserted else { continue }
                    var external = ExternalDeclaration(name: Located(name, at: field.type.location))
                    let original = qualifiedNames[name] ?? name
                    external.conformances = (declaredTypes[original] ?? []).compactMap { ExternalDeclaration.Conformance(rawValue: $0) }
                        .map { Located($0, at: field.type.location) }
                    if declaredTypes[original] == nil {
                        diagnostics.append(.warning("type '\(name)' is not declared in the converted files; declared as 'external \(name)'",
                                                    at: field.type.location,
                                                    hint: "list its file in the conversion, or add Equatable/Hashable to the external line if the type has them"))
                    } else if let inheritance = declaredTypes[original], !inheritance.contains("IndexKeyConvertible"),
                              inheritance.contains("Codable") || inheritance.contains("Encodable"),
                              inheritance.contains("Hashable") || inheritance.contains("Equatable") || inheritance.contains("Comparable") {
                        // Indexes and `==` predicates over it, as SwiftletModel allows: the
                        // runtime's default index value (raw value, or canonical JSON) applies.
                        // A generic type conforms once, for every argument (`extension Box: ...`).
                        let conforming = genericAliases[name].map { String($0[..<$0.firstIndex(of: "<")!]) } ?? original
                        let line = "extension \(conforming): IndexKeyConvertible {}"
                        if !indexConformances.contains(line), declaredConformances.insert(line).inserted { indexConformances.append(line) }
                    }
                    documents[d].declarations.append(.external(external))
                }
            }
        }
        }
        if !indexConformances.isEmpty {
            kept.append("// Types the schema keeps in Swift, usable in indexes and `==` predicates.\n" + indexConformances.joined(separator: "\n"))
        }
        document = documents[0]
        let hasSchema = !document.declarations.isEmpty
        var swift: String?
        if !kept.isEmpty {
            swift = "// Kept from \(Self.fileName(input.path)) by `schemagen convert --from swiftletmodel`: the code\n"
                + "// a schema cannot hold. The entities themselves are generated from the schema.\n\n"
                + (["import Foundation", "import SchemaRuntime"] + imports).joined(separator: "\n") + "\n\n"
                + kept.joined(separator: "\n\n") + "\n"
        }
        let main = SwiftletModelImport.File(sourcePath: input.path, schemaStem: Self.schemaStem(for: input.path), schema: hasSchema ? document : nil,
                                            schemaText: hasSchema ? Self.endingInNewline(DSLPrinter.print(document)) : nil, swiftText: swift)
        return [main] + documents.dropFirst().map { other in
            SwiftletModelImport.File(sourcePath: input.path, schemaStem: Self.schemaStem(forSchemaPath: other.path), schema: other,
                                     schemaText: Self.endingInNewline(DSLPrinter.print(other)), swiftText: nil)
        }
    }

    /// SwiftletModel's schema root: an `@EntityModel` without an `id`, whose relations list
    /// every entity type (and `Deleted<T>` archives), queried to read or sync the whole graph.
    private func isSchemaRoot(_ declaration: SwiftDeclaration, in input: Input) -> Bool {
        let members = input.reader.declarations(in: declaration.body ?? 0..<0)
        let stored = members.filter { ($0.keyword == "var" || $0.keyword == "let") && !$0.modifiers.contains("static") }
        return !stored.contains { $0.name == "id" } && stored.contains { $0.attribute("Relationship") != nil }
    }

    /// The schema root as kept Swift: the generated schema type already lists every entity,
    /// and ``ContextDocument`` is the whole graph as one Codable value.
    private mutating func schemaRoot(_ declaration: SwiftDeclaration, in input: Input) -> String {
        let name = declaration.name ?? "Schema"
        diagnostics.append(.warning("'\(name)' has no id: it is a schema root, kept as 'typealias \(name) = ContextDocument<\(options.schemaName)>'",
                                    at: input.tokens[declaration.keywordIndex].location,
                                    hint: "read or sync the whole graph with ContextDocument<\(options.schemaName)>(context); query each entity type on its own (docs/Migrating.md)"))
        return """
            /// SwiftletModel's schema root: here the whole graph is one document, every entity and
            /// archive by type with links as ids (`\(name)(context)`, Codable), and each entity type
            /// is queried on its own (`User.query(in: context).updated(within: ...)`).
            typealias \(name) = ContextDocument<\(options.schemaName)>
            """
    }

    /// `Schema.V1` in `extension Schema.V1 {`: the names after the keyword at `index`.
    private func dottedName(after index: Int, in input: Input) -> [String] {
        var names: [String] = []
        var position = index + 1
        while position < input.tokens.count, input.tokens[position].kind == .identifier {
            names.append(input.tokens[position].text)
            guard position + 2 < input.tokens.count, input.tokens[position + 1].isPunctuation(".") else { break }
            position += 2
        }
        return names
    }

    /// Whether a namespace's body declares `@EntityModel` structs.
    private func containsEntities(_ declaration: SwiftDeclaration, in input: Input) -> Bool {
        guard let body = declaration.body else { return false }
        return input.reader.declarations(in: body).contains { $0.keyword == "struct" && $0.attribute("EntityModel") != nil }
    }

    /// The source text of tokens `range` (inclusive), as written.
    func text(_ range: ClosedRange<Int>, in input: Input) -> String {
        input.scanner.text(input.tokens[range.lowerBound].start, input.tokens[range.upperBound].end)
    }

    static func endingInNewline(_ text: String) -> String { text.hasSuffix("\n") ? text : text + "\n" }

    /// The schema file a Swift model file converts to: `Models/Chat.swift` -> `Models/Chat.schema`.
    static func schemaPath(for swiftPath: String) -> String {
        (swiftPath.hasSuffix(".swift") ? String(swiftPath.dropLast(6)) : swiftPath) + ".schema"
    }

    /// The schema file's name without its extension: `Models/Chat.swift` -> `Chat`.
    static func schemaStem(for swiftPath: String) -> String {
        schemaStem(forSchemaPath: schemaPath(for: swiftPath))
    }

    static func schemaStem(forSchemaPath path: String) -> String {
        String(fileName(path).dropLast(".schema".count))
    }

    /// The path of schema file `stem` in the Swift file's folder.
    static func schemaPath(forStem stem: String, beside swiftPath: String) -> String {
        let folder = swiftPath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        return (folder.isEmpty ? "" : folder + "/") + stem + ".schema"
    }

    static func fileName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// The declaration's source, from the start of its first line to its last token.
    func verbatim(_ declaration: SwiftDeclaration, in input: Input) -> String {
        var start = input.tokens[declaration.tokens.lowerBound].start
        while start > 0, input.scanner.scalars[start - 1] != "\n" { start -= 1 }
        return input.scanner.text(start, input.tokens[declaration.tokens.upperBound].end)
    }

    // MARK: Enums

    /// A schema enum for `enum Name: String|Int { case a, b = "x" }` without anything else;
    /// nil for other enums (kept in Swift).
    func simpleEnum(_ declaration: SwiftDeclaration, in input: Input) -> EnumDeclaration? {
        guard let name = declaration.name, let body = declaration.body,
              let rawType = inheritance(of: declaration, in: input).first, ["String", "Int"].contains(rawType) else { return nil }
        var result = EnumDeclaration(name: Located(name, at: input.tokens[declaration.keywordIndex + 1].location),
                                     rawType: Located(rawType, at: input.tokens[declaration.keywordIndex + 1].location))
        result.access = Self.access(declaration.modifiers)
        result.documentation = declaration.documentation
        for member in input.reader.declarations(in: body) {
            guard member.keyword == "case", member.attributes.isEmpty else { return nil }
            var index = member.keywordIndex + 1
            var documentation = member.documentation
            while index <= member.tokens.upperBound {
                guard input.tokens[index].kind == .identifier else { return nil }
                var item = EnumDeclaration.Case(name: Located(input.tokens[index].text, at: input.tokens[index].location))
                item.documentation = documentation
                documentation = []
                index += 1
                if index <= member.tokens.upperBound, input.tokens[index].isPunctuation("=") {
                    guard index + 1 <= member.tokens.upperBound else { return nil }
                    let literal = input.tokens[index + 1]
                    let (value, problems) = DSLParser.parseDefaultValue(literal.text, at: literal.location)
                    guard let value, problems.isEmpty else { return nil }
                    item.rawValue = Located(value, at: literal.location)
                    index += 2
                }
                result.cases.append(item)
                if index <= member.tokens.upperBound {
                    guard input.tokens[index].isPunctuation(",") else { return nil }
                    index += 1
                }
            }
        }
        return result.cases.isEmpty ? nil : result
    }

    static func access(_ modifiers: [String]) -> AccessLevel {
        if modifiers.contains("public") || modifiers.contains("open") { return .public }
        if modifiers.contains("package") { return .package }
        return .internal
    }
}
