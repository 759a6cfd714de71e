/// Checks the documents of one target together (relations cross files) and translates them
/// into a ``SchemaModel``. Every problem is reported; the model is only used when there are none.
public struct SchemaValidator {
    private var diagnostics = Diagnostics()
    private var catalog = TypeCatalog()
    private let documents: [SchemaDocument]

    /// Declarations that a syntax error cut short, in any file: errors that only follow from
    /// the gap are not reported (the syntax error is the root cause).
    private let incompleteNames: Set<String>

    private init(documents: [SchemaDocument]) {
        self.documents = documents
        self.incompleteNames = documents.reduce(into: []) { $0.formUnion($1.incompleteNames) }
    }

    public static func validate(_ documents: [SchemaDocument]) -> (SchemaModel, [Diagnostic]) {
        var validator = SchemaValidator(documents: documents)
        let model = validator.run()
        return (model, validator.diagnostics.all)
    }

    private mutating func error(_ message: String, at location: SourceLocation, hint: String? = nil) {
        diagnostics.error(message, at: location, hint: hint)
    }

    /// The file's namespace, each name checked; the types' aliases are generated inside it,
    /// so a name of the file's own types cannot be a namespace component.
    private mutating func checkedNamespace(_ document: SchemaDocument) -> [String] {
        guard let namespace = document.namespace else { return [] }
        for name in namespace.value {
            if let problem = SwiftName.identifierProblem(name) {
                error("namespace: \(problem)", at: namespace.location, hint: "write the enum's path, e.g. 'namespace Models.V1'")
                return []
            }
        }
        let own = Set(document.declarations.map(\.name.value))
        if let clash = namespace.value.first(where: own.contains) {
            error("namespace '\(namespace.value.joined(separator: "."))' names '\(clash)', a type this file declares", at: namespace.location,
                  hint: "a namespace is an enum declared in Swift, apart from the schema's types")
            return []
        }
        return namespace.value
    }

    /// The file's aliases, checked: each gives a type of this file one more name in the
    /// file's namespace, so it needs a namespace, a type of the file, and a name the
    /// namespace does not hold already.
    private mutating func checkedAliases(_ document: SchemaDocument, namespace: [String]) -> [AliasModel] {
        guard !document.aliases.isEmpty else { return [] }
        guard document.namespace != nil else {
            for alias in document.aliases {
                error("alias '\(alias.name.value)' needs a namespace to be a name in: this file has none", at: alias.name.location,
                      hint: "add 'namespace Models' as the file's first line, or rename the type itself")
            }
            return []
        }
        let own = document.declarations.filter { if case .external = $0 { return false } else { return true } }.map(\.name.value)
        var names = Set(own)
        var checked: [AliasModel] = []
        for alias in document.aliases {
            var valid = true
            if let problem = SwiftName.identifierProblem(alias.name.value) {
                error("alias: \(problem)", at: alias.name.location, hint: "an alias becomes a Swift typealias name")
                valid = false
            } else if own.contains(alias.name.value) {
                error("alias '\(alias.name.value)' is the name of a type of this file, which the namespace already lists under it",
                      at: alias.name.location, hint: "rename the type (entity IndexedRichProperty) and alias the name to it")
                valid = false
            } else if !names.insert(alias.name.value).inserted {
                error("alias '\(alias.name.value)' is declared twice", at: alias.name.location)
                valid = false
            }
            if !own.contains(alias.target.value) {
                error("alias '\(alias.name.value)' names '\(alias.target.value)', which is not a type of this file", at: alias.target.location,
                      hint: Suggestion.didYouMean(alias.target.value, in: own) ?? "an alias names an entity, enum or struct the same file declares")
                valid = false
            }
            if valid, !namespace.isEmpty { checked.append(AliasModel(name: alias.name.value, target: alias.target.value)) }
        }
        return checked
    }

    private mutating func run() -> SchemaModel {
        registerDeclarations()
        checkOutputNames()
        var files: [FileModel] = []
        for document in documents {
            var declarations: [DeclarationModel] = []
            for declaration in document.declarations {
                switch declaration {
                case .entity(let entity): declarations.append(.entity(validateEntity(entity)))
                case .enumeration(let enumeration): declarations.append(.enumeration(validateEnum(enumeration)))
                case .structure(let structure): declarations.append(.structure(validateStruct(structure)))
                case .external: break
                }
            }
            let externals = document.declarations.compactMap { declaration -> ExternalModel? in
                guard case .external(let external) = declaration else { return nil }
                return ExternalModel(name: external.name.value, isHashable: external.conformances.contains { $0.value == .Hashable },
                                     origin: external.name.location)
            }
            let namespace = checkedNamespace(document)
            var file = FileModel(sourceName: Self.fileName(document.path), outputName: Self.outputName(for: document.path),
                                 declarations: declarations, externals: externals, namespace: namespace)
            file.aliases = checkedAliases(document, namespace: namespace)
            files.append(file)
        }
        resolveEquatableEntities(&files)
        let entities = documents.flatMap { document in
            document.declarations.compactMap { declaration -> EntityDeclaration? in
                if case .entity(let entity) = declaration { return entity }
                return nil
            }
        }
        diagnostics.append(contentsOf: RequiredRelationCycles(entities: entities).diagnostics())
        let structs = documents.flatMap { document in
            document.declarations.compactMap { declaration -> StructDeclaration? in
                if case .structure(let structure) = declaration { return structure }
                return nil
            }
        }
        diagnostics.append(contentsOf: FormerNameCheck.problems(entities: entities, structs: structs))
        return SchemaModel(files: files)
    }

    // MARK: Names and files

    static func fileName(_ path: String) -> String {
        String(path.split(separator: "/", omittingEmptySubsequences: false).last ?? Substring(path))
    }

    /// `Chat.schema` and `Chat.schema.json` both become `Chat.generated.swift`.
    public static func outputName(for path: String) -> String {
        var base = fileName(path)
        for suffix in [".schema.json", ".schema"] where base.hasSuffix(suffix) {
            base.removeLast(suffix.count)
            break
        }
        return base + ".generated.swift"
    }

    /// Every generated file name must be unique, compared without case: macOS and Windows
    /// file systems do not tell `User.generated.swift` from `user.generated.swift`.
    private mutating func checkOutputNames() {
        var seen: [String: String] = [:]
        for document in documents {
            let output = Self.outputName(for: document.path)
            if let previous = seen[output.lowercased()] {
                error("'\(document.path)' and \(previous) would both generate '\(output)'",
                      at: SourceLocation(path: document.path, line: 1, column: 1),
                      hint: "rename one of the schema files; each target generates one Swift file per schema file name")
            } else {
                seen[output.lowercased()] = "'\(document.path)'"
            }
        }
        for document in documents {
            let output = Self.outputName(for: document.path)
            for case .entity(let entity) in document.declarations {
                let file = FileModel.entityOutputName(entity.name.value, schemaOutput: output)
                guard file != output else { continue }
                if let previous = seen[file.lowercased()] {
                    error("entity '\(entity.name.value)' would be generated into '\(file)', which \(previous) also generates",
                          at: entity.name.location,
                          hint: "rename the entity or a schema file; file names that differ only in case are one file on macOS")
                } else {
                    seen[file.lowercased()] = "entity '\(entity.name.value)' at \(entity.name.location)"
                }
            }
        }
    }

    private mutating func registerDeclarations() {
        var seen: [String: SourceLocation] = [:]
        for document in documents {
            for declaration in document.declarations {
                let name = declaration.name
                if let previous = seen[name.value] {
                    error("duplicate declaration of '\(name.value)'", at: name.location, hint: "'\(name.value)' is first declared at \(previous)")
                    continue
                }
                if case .external = declaration {
                    // An external type is the user's own Swift type; only keywords cannot name one.
                    if SwiftName.keywords.contains(name.value) || SwiftName.forbiddenMemberNames.contains(name.value) {
                        error("'\(name.value)' is a Swift keyword and cannot name a type", at: name.location)
                    }
                } else if SwiftName.keywords.contains(name.value) || name.value == "Type" || name.value == "Protocol" {
                    error("'\(name.value)' is a Swift keyword and cannot name a type", at: name.location,
                          hint: "choose another name, e.g. '\(name.value.prefix(1).uppercased() + name.value.dropFirst())Model'")
                } else if SwiftName.reservedTypeNames.contains(name.value) {
                    error("'\(name.value)' would shadow the Swift or SchemaRuntime type of that name, which generated code uses", at: name.location,
                          hint: "choose another name, e.g. '\(name.value)Model'; to store the standard '\(name.value)', write it as a field type")
                }
                seen[name.value] = name.location
                switch declaration {
                case .entity(let d): catalog.entities[name.value] = d
                case .enumeration(let d): catalog.enums[name.value] = d
                case .structure(let d): catalog.structs[name.value] = d
                case .external(let d): catalog.externals[name.value] = d
                }
            }
        }
    }

    // MARK: Access levels

    /// The access level of a schema-declared type, or nil for built-ins and externals.
    private func accessLevel(of name: String) -> AccessLevel? {
        catalog.entities[name]?.access ?? catalog.enums[name]?.access ?? catalog.structs[name]?.access
    }

    /// Reports schema types in `type` that are less visible than the declaration using them.
    private mutating func checkAccess(of type: TypeReference, usedBy owner: String, access: AccessLevel, member: String, at location: SourceLocation) {
        for name in type.namedTypes {
            guard let level = accessLevel(of: name), level < access else { continue }
            error("\(access.rawValue) '\(owner)' uses \(level.rawValue) type '\(name)' in '\(member)'", at: location,
                  hint: "declare '\(name)' \(access.rawValue), or lower the access level of '\(owner)'")
        }
    }

    // MARK: Types and values

    /// Reports unknown names in a field type. Entities are not field types: they are related.
    private mutating func checkFieldType(_ type: Located<TypeReference>) {
        for name in type.value.namedTypes where !catalog.isKnownFieldType(name) && type.value != .invalid && !incompleteNames.contains(name) {
            if catalog.entities[name] != nil {
                error("entity '\(name)' cannot be the type of a field", at: type.location,
                      hint: "link entities with a relation: 'relation \(name.prefix(1).lowercased() + name.dropFirst()): \(name)'")
            } else {
                error("unknown type '\(name)'", at: type.location,
                      hint: Suggestion.didYouMean(name, in: catalog.fieldTypeNames)
                          ?? "declare Swift types defined elsewhere with 'external \(name)' (they must be Codable & Sendable)")
            }
        }
        if case .dictionary(let key, _) = type.value.unwrapped, !catalog.traits(of: key).hashable, key.namedTypes.allSatisfy(catalog.isKnownFieldType) {
            error("dictionary key type '\(key)' is not Hashable", at: type.location)
        }
    }

    /// Reports a default value that cannot initialize a field of `type`.
    private mutating func checkDefault(_ value: Located<DefaultValue>, for type: TypeReference, field: String) {
        if type.namedTypes.contains(where: incompleteNames.contains) { return }
        guard defaultMatches(value.value, type) else {
            var hint: String?
            if case .named(let name) = type.unwrapped, let enumeration = catalog.enums[name] {
                let cases = enumeration.cases.map { "." + $0.name.value }
                hint = (Suggestion.closest(to: value.value.memberName ?? "", in: enumeration.cases.map(\.name.value)).map { "did you mean '.\($0)'? " } ?? "")
                    + "'\(name)' has the cases " + cases.joined(separator: ", ")
            }
            error("default value \(value.value) does not match type '\(type)' of '\(field)'", at: value.location, hint: hint)
            return
        }
        if let problem = literalRangeProblem(value.value, type) {
            error("default value of '\(field)': \(problem)", at: value.location)
        }
    }

    /// The first numeric literal in `value` that its (already matching) type cannot hold.
    private func literalRangeProblem(_ value: DefaultValue, _ type: TypeReference) -> String? {
        switch (value, type) {
        case (_, .optional(let wrapped)): return literalRangeProblem(value, wrapped)
        case (.integer(let text), .named(let name)): return NumericLiteral.rangeProblem(text, kind: .integer, type: name)
        case (.float(let text), .named(let name)): return NumericLiteral.rangeProblem(text, kind: .float, type: name)
        case (.array(let elements), .array(let element)): return elements.lazy.compactMap { literalRangeProblem($0, element) }.first
        default: return nil
        }
    }

    private func defaultMatches(_ value: DefaultValue, _ type: TypeReference) -> Bool {
        if case .optional(let wrapped) = type {
            if value == .nil { return true }
            return defaultMatches(value, wrapped)
        }
        switch (value, type) {
        case (.nil, _): return false
        case (.string, .named(let name)): return name == "String" || catalog.externals[name] != nil
        case (.integer, .named(let name)):
            return TypeCatalog.integerTypes.contains(name) || TypeCatalog.floatingTypes.contains(name) || catalog.externals[name] != nil
        case (.float, .named(let name)): return TypeCatalog.floatingTypes.contains(name) || catalog.externals[name] != nil
        case (.bool, .named(let name)): return name == "Bool" || catalog.externals[name] != nil
        case (.member(let member), .named(let name)):
            // Enum cases are checked; other types' static members (`.now`) are left to the compiler.
            if let enumeration = catalog.enums[name] { return enumeration.cases.contains { $0.name.value == member } }
            return true
        case (.array(let elements), .array(let element)): return elements.allSatisfy { defaultMatches($0, element) }
        case (.emptyDictionary, .dictionary): return true
        default: return false
        }
    }

    private mutating func validateFields(_ fields: [FieldDeclaration], owner: String, access: AccessLevel) -> [FieldModel] {
        fields.map { field in
            checkFieldType(field.type)
            checkAccess(of: field.type.value, usedBy: owner, access: access, member: field.name.value, at: field.type.location)
            if let value = field.defaultValue { checkDefault(value, for: field.type.value, field: field.name.value) }
            var model = FieldModel(name: field.name.value, type: field.type.value, isMutable: field.isMutable,
                                   defaultValue: field.defaultValue?.value, documentation: field.documentation,
                                   formerNames: field.renamedFrom.map(\.value))
            if field.type.value.namedTypes.contains(where: { catalog.externals[$0] != nil }) { model.swiftOrigin = field.name.location }
            model.storage = FieldStorage.of(field.type.value, enums: Set(catalog.enums.keys))
            return model
        }
    }

    // MARK: Entities

    private mutating func validateEntity(_ entity: EntityDeclaration) -> EntityModel {
        let entityName = entity.name.value
        checkMemberNames(entity)

        // The id comes first in the generated struct.
        var fieldDeclarations = entity.fields
        if let idIndex = fieldDeclarations.firstIndex(where: { $0.name.value == "id" }) {
            let id = fieldDeclarations.remove(at: idIndex)
            fieldDeclarations.insert(id, at: 0)
            if id.isMutable {
                error("the 'id' of entity '\(entityName)' must be declared with 'let'", at: id.name.location, hint: "an entity's identity never changes; write 'let id: \(id.type.value)'")
            }
            if id.type.value.isOptional {
                error("the 'id' of entity '\(entityName)' cannot be optional", at: id.type.location)
            } else if catalog.isKnownFieldType(id.type.value.namedTypes.first ?? "") && !catalog.traits(of: id.type.value).hashable {
                error("the 'id' type '\(id.type.value)' of entity '\(entityName)' is not Hashable", at: id.type.location,
                      hint: "use String, Int, UUID or another Hashable type")
            }
        } else {
            if !incompleteNames.contains(entityName) {
                error("entity '\(entityName)' has no 'id' field", at: entity.name.location, hint: "add 'let id: String' (or Int, UUID, ...) to identify '\(entityName)' entities")
            }
            fieldDeclarations.insert(FieldDeclaration(name: Located("id", at: entity.name.location), type: Located(.named("String"), at: entity.name.location), isMutable: false), at: 0)
        }
        let fields = validateFields(fieldDeclarations, owner: entityName, access: entity.access)
        let fieldsByName = Dictionary(fields.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

        let relations = validateRelations(entity)
        let indexes = validateIndexes(entity, fieldsByName: fieldsByName)

        var defaultMerge: [MergeRuleModel] = [MergeRuleModel(kind: .replace, fields: [])]
        var fragmentMerge: [MergeRuleModel] = [MergeRuleModel(kind: .patch, fields: [])]
        var seenSlots: [MergeDeclaration.Which: SourceLocation] = [:]
        for merge in entity.mergeRules {
            if let previous = seenSlots[merge.which] {
                error("'merge \(merge.which.rawValue)' is declared twice in entity '\(entityName)'", at: merge.location, hint: "first declared at \(previous); list every rule in one declaration")
                continue
            }
            seenSlots[merge.which] = merge.location
            let rules = merge.rules.compactMap { validateMergeRule($0, fieldsByName: fieldsByName, entity: entityName) }
            if merge.which == .default { defaultMerge = rules } else { fragmentMerge = rules }
        }

        return EntityModel(
            name: entityName, access: entity.access, documentation: entity.documentation,
            formerNames: entity.renamedFrom.map(\.value),
            fields: fields, relations: relations, indexes: indexes,
            defaultMerge: defaultMerge, fragmentMerge: fragmentMerge,
            patchFields: fields.filter { $0.isMutable && $0.type.isOptional }.map(\.name),
            tracksUpdatedAt: entity.tracksUpdatedAt?.value ?? false,
            keepsDeletedArchives: entity.keepsDeletedArchives?.value ?? false,
            isEquatable: fields.allSatisfy { catalog.traits(of: $0.type).equatable }
        )
    }

    private mutating func checkMemberNames(_ entity: EntityDeclaration) {
        var seen: [String: SourceLocation] = [:]
        let members = entity.fields.map(\.name) + entity.relations.map(\.name)
        let relationNames = Set(entity.relations.map(\.name.value))
        for name in members.sorted(by: { $0.location < $1.location }) {
            if let previous = seen[name.value] {
                error("duplicate member '\(name.value)' in entity '\(entity.name.value)'", at: name.location, hint: "'\(name.value)' is first declared at \(previous)")
                continue
            }
            seen[name.value] = name.location
            if SwiftName.forbiddenMemberNames.contains(name.value) {
                error("'\(name.value)' cannot name a member in Swift, even in backquotes", at: name.location, hint: "rename it, e.g. '\(name.value == "_" ? "value" : name.value.lowercased())Value'")
            } else if SwiftName.generatedEntityMembers.contains(name.value) {
                error("'\(name.value)' collides with a member generated for entity '\(entity.name.value)'", at: name.location,
                      hint: "rename it, e.g. '\(name.value)Value'")
            } else if name.value.hasPrefix("_"), relationNames.contains(String(name.value.dropFirst())) {
                error("'\(name.value)' collides with the storage of relation '\(name.value.dropFirst())'", at: name.location, hint: "rename the field")
            }
        }
    }

    private mutating func validateRelations(_ entity: EntityDeclaration) -> [RelationModel] {
        var toOneColumn = 0, toManyColumn = 0
        return entity.relations.map { relation in
            let column: Int
            if relation.isToMany { column = toManyColumn; toManyColumn += 1 } else { column = toOneColumn; toOneColumn += 1 }
            var model = RelationModel(name: relation.name.value, target: relation.target.value, isToMany: relation.isToMany,
                                      isRequired: relation.isRequired?.value ?? false, inverse: nil,
                                      deleteRule: relation.deleteRule, column: column, documentation: relation.documentation,
                                      formerNames: relation.renamedFrom.map(\.value))
            if relation.isToMany, let required = relation.isRequired {
                error("to-many relation '\(relation.name.value)' cannot be required", at: required.location,
                      hint: "remove 'required': an empty list already means no related entities")
                model.isRequired = false
            }
            if catalog.entities[relation.target.value] != nil {
                checkAccess(of: .named(relation.target.value), usedBy: entity.name.value, access: entity.access,
                            member: relation.name.value, at: relation.target.location)
            }
            guard let target = catalog.entities[relation.target.value] else {
                if incompleteNames.contains(relation.target.value) { return model }
                let isOtherType = catalog.isKnownFieldType(relation.target.value)
                error(isOtherType ? "relation target '\(relation.target.value)' is not an entity" : "unknown entity '\(relation.target.value)'",
                      at: relation.target.location,
                      hint: isOtherType ? "relations link entities; store values with 'var \(relation.name.value): \(relation.target.value)'"
                          : Suggestion.didYouMean(relation.target.value, in: catalog.entities.keys) ?? "declare 'entity \(relation.target.value)' in a schema file of this target")
                return model
            }
            if let inverseName = relation.inverse {
                model.inverse = resolveInverse(of: relation, in: entity, inverseName: inverseName, target: target)
            }
            return model
        }
    }

    /// Checks that the inverse exists, points back, and names this relation in turn.
    private mutating func resolveInverse(of relation: RelationDeclaration, in entity: EntityDeclaration,
                                         inverseName: Located<String>, target: EntityDeclaration) -> RelationModel.InverseModel? {
        let qualified = "\(entity.name.value).\(relation.name.value)"
        guard let inverse = target.relations.first(where: { $0.name.value == inverseName.value }) else {
            if incompleteNames.contains(target.name.value) { return nil }
            error("'\(target.name.value)' has no relation '\(inverseName.value)' to be the inverse of '\(qualified)'", at: inverseName.location,
                  hint: Suggestion.didYouMean(inverseName.value, in: target.relations.map(\.name.value))
                      ?? Self.missingInverseHint(inverseName.value, of: relation, in: entity.name.value, target: target.name.value))
            return nil
        }
        guard inverse.target.value == entity.name.value else {
            // An inverse that targets an unknown entity has its own error there (the root
            // cause, "unknown entity 'Autor'"); this one would only repeat it.
            guard catalog.entities[inverse.target.value] != nil else { return nil }
            error("inverse '\(target.name.value).\(inverseName.value)' of '\(qualified)' links to '\(inverse.target.value)', not back to '\(entity.name.value)'",
                  at: inverseName.location, hint: "the inverse of a relation must link back to '\(entity.name.value)'")
            return nil
        }
        switch inverse.inverse?.value {
        case relation.name.value?:
            break
        case nil:
            if incompleteNames.contains(target.name.value) { return nil }
            error("'\(qualified)' names '\(target.name.value).\(inverseName.value)' as its inverse, but '\(target.name.value).\(inverseName.value)' names no inverse",
                  at: inverseName.location, hint: "mutual relations name each other: add 'inverse: \(relation.name.value)' to relation '\(inverseName.value)' of '\(target.name.value)'")
            return nil
        case let other?:
            error("mutual relations are declared inconsistently: '\(qualified)' names '\(target.name.value).\(inverseName.value)' as its inverse, but that one names '\(other)'",
                  at: inverseName.location, hint: "make '\(target.name.value).\(inverseName.value)' name 'inverse: \(relation.name.value)', or fix this inverse")
            return nil
        }
        // Inverse columns are counted exactly as validateRelations numbers the target's relations.
        let sameKind = target.relations.filter { $0.isToMany == inverse.isToMany }
        let column = sameKind.firstIndex { $0.name.value == inverse.name.value } ?? 0
        return RelationModel.InverseModel(name: inverse.name.value, isToMany: inverse.isToMany, column: column)
    }

    /// The relation to add for a missing inverse. Its cardinality cannot be known, so the
    /// name decides (`loans` is to-many, `book` to-one) and the other form is mentioned.
    static func missingInverseHint(_ inverse: String, of relation: RelationDeclaration, in entity: String, target: String) -> String {
        let looksPlural = inverse.count > 1 && inverse.hasSuffix("s") && !inverse.hasSuffix("ss")
        let (type, other) = looksPlural ? ("[\(entity)]", entity) : (entity, "[\(entity)]")
        return "add 'relation \(inverse): \(type), inverse: \(relation.name.value)' to '\(target)' (or '\(other)' if each \(target) links \(looksPlural ? "one" : "many"))"
    }

    private mutating func validateIndexes(_ entity: EntityDeclaration, fieldsByName: [String: FieldModel]) -> [IndexModel] {
        var seen: [[String]: SourceLocation] = [:]
        var namedIndexes: [String: (location: SourceLocation, fields: [String], descending: [Bool])] = [:]
        var models: [IndexModel] = []
        let relationNames = Set(entity.relations.map(\.name.value))
        for index in entity.indexes {
            let kind = index.kind.value
            var valid = true
            if kind != .fulltext, index.fields.count > 4 {
                error("\(kind.rawValue) index has \(index.fields.count) fields; at most 4 are supported", at: index.location,
                      hint: "keep the most selective fields first and drop the rest")
                valid = false
            }
            if index.fields.isEmpty {
                error("\(kind.rawValue) index has no fields", at: index.location)
                valid = false
            }
            if let collision = index.collision, kind != .unique {
                error("'onCollision' only applies to unique indexes", at: collision.location)
            }
            var types: [TypeReference] = []
            for field in index.fields {
                guard let model = fieldsByName[field.name.value] else {
                    valid = false
                    if incompleteNames.contains(entity.name.value) { continue }
                    if relationNames.contains(field.name.value) {
                        error("'\(field.name.value)' is a relation; indexes cover fields", at: field.name.location)
                    } else {
                        error("unknown field '\(field.name.value)' in \(kind.rawValue) index of '\(entity.name.value)'", at: field.name.location,
                              hint: Suggestion.didYouMean(field.name.value, in: fieldsByName.keys))
                    }
                    continue
                }
                types.append(model.type)
                if field.descending, kind != .ordered {
                    error("'desc' only applies to ordered indexes", at: field.name.location)
                }
                let traits = catalog.traits(of: model.type)
                let known = model.type.namedTypes.allSatisfy(catalog.isKnownFieldType)
                switch kind {
                case .ordered where known && !traits.comparable:
                    error("ordered index field '\(field.name.value)' has type '\(model.type)', which is not Comparable", at: field.name.location,
                          hint: traits.hashable ? "use 'index hash(\(field.name.value))' for equality lookups" : "order by a Comparable field instead")
                    valid = false
                case .hash where known && !traits.hashable:
                    error("\(kind.rawValue) index field '\(field.name.value)' has type '\(model.type)', which is not Hashable", at: field.name.location)
                    valid = false
                case .unique where known && !traits.hashable && !traits.comparable:
                    // Keys are compared as index values, so either is enough (as in SwiftletModel).
                    error("unique index field '\(field.name.value)' has type '\(model.type)', which is neither Hashable nor Comparable", at: field.name.location)
                    valid = false
                case .fulltext where !TypeCatalog.isString(model.type):
                    error("full-text index field '\(field.name.value)' has type '\(model.type)'; full-text indexes need String fields", at: field.name.location)
                    valid = false
                default:
                    break
                }
            }
            let signature = [kind.rawValue] + index.fields.map { $0.name.value + ($0.descending ? " desc" : "") }
            if let previous = seen[signature] {
                error("duplicate \(kind.rawValue) index on \(index.fields.map(\.name.value).joined(separator: ", "))", at: index.location, hint: "first declared at \(previous)")
                valid = false
            }
            seen[signature] = index.location
            guard valid else { continue }
            let suffix = kind == .fulltext ? "FullText" : kind.rawValue.prefix(1).uppercased() + kind.rawValue.dropFirst()
            let fieldNames = index.fields.map(\.name.value), descending = index.fields.map(\.descending)
            func name(withDirections: Bool) -> String {
                index.fields.enumerated().map { offset, field in
                    let word = offset == 0 ? field.name.value : field.name.value.prefix(1).uppercased() + field.name.value.dropFirst()
                    return word + (withDirections && field.descending ? "Desc" : "")
                }.joined() + suffix
            }
            var indexName = name(withDirections: false)
            // Derived names must be unique too: `hash(aB)` and `hash(a, b)` would otherwise
            // declare the same static twice. Ordered indexes over the same fields in different
            // directions are different orders (`(a, b)` reversed is `(a desc, b desc)`, not
            // `(a desc, b)`), so the later one is named with its directions.
            if let previous = namedIndexes[indexName], previous.fields == fieldNames, kind == .ordered,
               previous.descending != descending.map({ !$0 }), namedIndexes[name(withDirections: true)] == nil {
                indexName = name(withDirections: true)
            }
            if let previous = namedIndexes[indexName] {
                let reversed = previous.fields == fieldNames && previous.descending == descending.map { !$0 }
                error("\(kind.rawValue) index on \(index.fields.map { $0.name.value + ($0.descending ? " desc" : "") }.joined(separator: ", ")) would be generated as '\(entity.name.value).Indexes.\(indexName)', like the \(kind.rawValue) index at \(previous.location)",
                      at: index.location,
                      hint: reversed ? "each index is the other read backwards, and a reversed scan serves every sort either one serves; keep one"
                          : "rename a field, or drop one of the two indexes")
                continue
            }
            namedIndexes[indexName] = (index.location, fieldNames, descending)
            var model = IndexModel(kind: kind, fieldNames: index.fields.map(\.name.value), descending: index.fields.map(\.descending),
                                   fieldTypes: types, collision: index.collision?.value ?? .throw, name: indexName)
            if case .resolver = model.collision { model.swiftOrigin = index.collision?.location }
            models.append(model)
        }
        return models
    }

    private mutating func validateMergeRule(_ rule: MergeDeclaration.Rule, fieldsByName: [String: FieldModel], entity: String) -> MergeRuleModel? {
        switch rule.kind {
        case .replace:
            if !rule.fields.isEmpty { error("'replace' takes no fields", at: rule.location, hint: "write 'replace' alone: it stores the new entity as it is") }
        case .lastWriteWins where rule.fields.count != 1:
            error("'lastWriteWins' takes exactly one field", at: rule.location, hint: "write e.g. 'lastWriteWins(updatedAt)'")
            return nil
        case .append where rule.fields.isEmpty:
            error("'append' needs the array fields to append", at: rule.location, hint: "write e.g. 'append(tags)'")
            return nil
        default:
            break
        }
        var valid = true
        for name in rule.fields {
            guard let field = fieldsByName[name.value] else {
                valid = false
                if incompleteNames.contains(entity) { continue }
                error("unknown field '\(name.value)' in merge rule '\(rule.kind.rawValue)' of '\(entity)'", at: name.location,
                      hint: Suggestion.didYouMean(name.value, in: fieldsByName.keys))
                valid = false
                continue
            }
            switch rule.kind {
            case .patch where !(field.isMutable && field.type.isOptional):
                error("'patch' needs an optional 'var' field; '\(name.value)' is \(field.isMutable ? "" : "a 'let' of type ")'\(field.type)'", at: name.location)
                valid = false
            case .append:
                let isArray = if case .array = field.type.unwrapped { true } else { false }
                if !(field.isMutable && isArray) {
                    error("'append' needs an array 'var' field; '\(name.value)' is '\(field.type)'", at: name.location)
                    valid = false
                }
            case .lastWriteWins where !catalog.traits(of: field.type).comparable:
                error("'lastWriteWins' needs a Comparable field; '\(name.value)' is '\(field.type)'", at: name.location)
                valid = false
            default:
                break
            }
        }
        return valid ? MergeRuleModel(kind: rule.kind, fields: rule.fields.map(\.value)) : nil
    }

    /// An entity is Equatable when its fields are and every entity it relates to is
    /// (relations hold entities). Computed as a fixed point because relations form cycles.
    private func resolveEquatableEntities(_ files: inout [FileModel]) {
        var equatable: [String: Bool] = [:]
        var relatedTo: [String: [String]] = [:]
        for file in files {
            for case .entity(let entity) in file.declarations {
                equatable[entity.name] = entity.isEquatable
                relatedTo[entity.name] = entity.relations.map(\.target)
            }
        }
        var changed = true
        while changed {
            changed = false
            for (name, targets) in relatedTo where equatable[name] == true {
                if targets.contains(where: { equatable[$0] != true }) {
                    equatable[name] = false
                    changed = true
                }
            }
        }
        for fileIndex in files.indices {
            for declarationIndex in files[fileIndex].declarations.indices {
                if case .entity(var entity) = files[fileIndex].declarations[declarationIndex] {
                    entity.isEquatable = equatable[entity.name] ?? false
                    files[fileIndex].declarations[declarationIndex] = .entity(entity)
                }
            }
        }
    }

    // MARK: Enums and structs

    private mutating func validateEnum(_ enumeration: EnumDeclaration) -> EnumModel {
        let rawType = enumeration.rawType.value
        if rawType != "String" && rawType != "Int" {
            error("enum '\(enumeration.name.value)' has raw type '\(rawType)'; use String or Int", at: enumeration.rawType.location)
        }
        if enumeration.cases.isEmpty, !incompleteNames.contains(enumeration.name.value) {
            error("enum '\(enumeration.name.value)' has no cases", at: enumeration.name.location)
        }
        var seenNames: [String: SourceLocation] = [:]
        var seenRaw: [String: SourceLocation] = [:]
        for item in enumeration.cases {
            if let previous = seenNames[item.name.value] {
                error("duplicate case '\(item.name.value)' in enum '\(enumeration.name.value)'", at: item.name.location, hint: "first declared at \(previous)")
            }
            seenNames[item.name.value] = item.name.location
            if SwiftName.forbiddenMemberNames.contains(item.name.value) || SwiftName.generatedEnumMembers.contains(item.name.value) {
                error("'\(item.name.value)' cannot name a case of enum '\(enumeration.name.value)'", at: item.name.location,
                      hint: SwiftName.generatedEnumMembers.contains(item.name.value) ? "generated enums have a member '\(item.name.value)'; rename the case" : "rename the case")
            }
            if let value = item.rawValue, case .integer(let text) = value.value, rawType == "Int",
               let problem = NumericLiteral.rangeProblem(text, kind: .integer, type: "Int") {
                error("raw value of case '\(item.name.value)': \(problem)", at: value.location)
            }
            let raw: String
            if let value = item.rawValue {
                let matches = switch (value.value, rawType) {
                case (.string, "String"), (.integer, "Int"): true
                default: false
                }
                if !matches { error("raw value \(value.value) of case '\(item.name.value)' is not a \(rawType)", at: value.location) }
                raw = value.value.description
            } else {
                raw = rawType == "String" ? SwiftLiteral.string(item.name.value) : "#\(item.name.value)"
            }
            if let previous = seenRaw[raw], !raw.hasPrefix("#") {
                error("raw value \(raw) of case '\(item.name.value)' is already used", at: item.rawValue?.location ?? item.name.location, hint: "first used at \(previous)")
            }
            seenRaw[raw] = item.rawValue?.location ?? item.name.location
        }
        return EnumModel(name: enumeration.name.value, access: enumeration.access, documentation: enumeration.documentation,
                         rawType: rawType, caseNames: enumeration.cases.map(\.name.value),
                         rawValues: enumeration.cases.map { $0.rawValue?.value }, caseDocumentation: enumeration.cases.map(\.documentation))
    }

    /// A struct that stores itself directly or through optionals and other structs would have
    /// infinite size; arrays and dictionaries store elements out of line, so they break the cycle.
    private mutating func checkRecursiveStorage(_ structure: StructDeclaration) {
        func inlineStructs(_ type: TypeReference) -> [String] {
            switch type {
            case .named(let name): catalog.structs[name] != nil ? [name] : []
            case .optional(let wrapped): inlineStructs(wrapped)
            case .array, .dictionary: []
            }
        }
        for field in structure.fields {
            var path = [structure.name.value]
            var visited: Set<String> = []
            var stack: [(name: String, path: [String])] = inlineStructs(field.type.value).map { ($0, path + [$0]) }
            while let (name, route) = stack.popLast() {
                if name == structure.name.value {
                    path = route
                    let chain = path.joined(separator: " -> ")
                    error("struct '\(structure.name.value)' contains itself through '\(field.name.value)' (\(chain)), so it would have infinite size", at: field.type.location,
                          hint: "store it in an array ('[\(name)]'), or make it an entity and link it with a relation")
                    break
                }
                guard visited.insert(name).inserted, let inner = catalog.structs[name] else { continue }
                for innerField in inner.fields {
                    stack.append(contentsOf: inlineStructs(innerField.type.value).map { ($0, route + [$0]) })
                }
            }
        }
    }

    private mutating func validateStruct(_ structure: StructDeclaration) -> StructModel {
        var seen: [String: SourceLocation] = [:]
        for field in structure.fields {
            if let previous = seen[field.name.value] {
                error("duplicate field '\(field.name.value)' in struct '\(structure.name.value)'", at: field.name.location, hint: "first declared at \(previous)")
            }
            seen[field.name.value] = field.name.location
            if SwiftName.forbiddenMemberNames.contains(field.name.value) || field.name.value == "CodingKeys" {
                error("'\(field.name.value)' cannot name a field of a struct", at: field.name.location, hint: "rename it, e.g. '\(field.name.value.lowercased())Value'")
            }
        }
        checkRecursiveStorage(structure)
        let fields = validateFields(structure.fields, owner: structure.name.value, access: structure.access)
        let traits = catalog.traits(of: .named(structure.name.value))
        return StructModel(name: structure.name.value, access: structure.access, documentation: structure.documentation,
                           fields: fields, isHashable: traits.hashable, isEquatable: traits.equatable)
    }
}
