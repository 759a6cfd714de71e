/// Converting one `@EntityModel` struct: stored properties become fields, `@Relationship`
/// properties relations, index attributes indexes, merge strategies merge rules; every other
/// member is kept as written in an extension.
extension SwiftletModelImporter {
    /// The entity, and the members kept in Swift (each as its source text).
    mutating func convertEntity(_ declaration: SwiftDeclaration, in input: Input) -> (EntityDeclaration, [String]) {
        let keyword = input.tokens[declaration.keywordIndex]
        let nameToken = input.tokens[declaration.keywordIndex + 1]
        var entity = EntityDeclaration(name: Located(nameToken.text, at: nameToken.location), location: keyword.location)
        entity.access = Self.access(declaration.modifiers)
        entity.documentation = declaration.documentation
        if options.tracksUpdatedAt { entity.tracksUpdatedAt = Located(true, at: keyword.location) }
        if options.keepsDeletedArchives { entity.keepsDeletedArchives = Located(true, at: keyword.location) }
        var kept: [String] = []
        var indexes: [(kind: IndexDeclaration.Kind, declaration: IndexDeclaration)] = []
        var inits: [SwiftDeclaration] = []
        for member in input.reader.declarations(in: declaration.body ?? 0..<0) {
            let isProperty = member.keyword == "var" || member.keyword == "let"
            if isProperty, let index = convertIndex(member, in: input) {
                // `@Index<Self>(\.age) private static var ageIndex`, or (newer) an instance `var`.
                indexes.append((index.kind.value, index))
            } else if isProperty, member.modifiers.contains("static") {
                if let name = member.name, name == "defaultMergeStrategy" || name == "fragmentMergeStrategy",
                          let merge = convertMerge(member, which: name == "defaultMergeStrategy" ? .default : .fragment, in: input) {
                    entity.mergeRules.append(merge)
                } else if let name = member.name, name == "defaultMergeStrategy" || name == "fragmentMergeStrategy" {
                    // Not translated: the generated entity defines it, so the original is kept as a comment.
                    kept.append(verbatim(member, in: input).split(separator: "\n", omittingEmptySubsequences: false)
                        .map { "// " + $0 }.joined(separator: "\n"))
                } else {
                    kept.append(verbatim(member, in: input))
                }
            } else if isProperty, member.attribute("Relationship") != nil {
                if let relation = convertRelation(member, in: input) { entity.relations.append(relation) }
            } else if isProperty, member.body == nil, member.attributes.isEmpty, member.name != nil {
                if let field = convertField(member, in: input) { entity.fields.append(field) }
            } else if isProperty, member.body == nil {
                let attribute = member.attributes[0]
                diagnostics.error("stored property '\(member.name ?? "?")' has attribute '@\(attribute.name)', which a schema cannot express",
                                  at: attribute.location,
                                  hint: "remove the attribute, or keep the value in a separate type; stored properties cannot move to an extension")
            } else if member.keyword == "init" {
                inits.append(member)
            } else {
                kept.append(verbatim(member, in: input))
            }
        }
        // An init with the generated memberwise init's labels, in its order (fields, then
        // relations) would redeclare it: the generated one takes its place.
        let memberwise = entity.fields.map(\.name.value) + entity.relations.map(\.name.value)
        for member in inits {
            let text = verbatim(member, in: input)
            if Self.parameterLabels(ofInit: text) == memberwise {
                diagnostics.append(.warning("init(\(memberwise.map { $0 + ":" }.joined())) of '\(entity.name.value)' is not kept: the generated memberwise init is the same",
                                            at: input.tokens[member.keywordIndex].location,
                                            hint: "the generated init defaults every relation to .none and every field with a default to it"))
            } else {
                kept.append(text)
            }
        }
        // Ordered indexes need Comparable fields; SwiftletModel also indexes Hashable-only ones
        // (Bool, UUID): those become hash indexes, which answer the same equality filters.
        for (kind, var index) in indexes {
            if kind == .ordered, index.fields.contains(where: { field in !isComparable(field.name.value, in: entity) }) {
                index.kind = Located(.hash, at: index.kind.location)
            }
            entity.indexes.append(index)
        }
        return (entity, kept.map(Self.indented))
    }

    /// Indents member source by four spaces relative to its own first line.
    static func indented(_ text: String) -> String {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let margin = lines.first.map { $0.prefix { $0 == " " || $0 == "\t" }.count } ?? 0
        return lines.map { line in
            let trimmed = line.prefix(margin).allSatisfy { $0 == " " || $0 == "\t" } ? line.dropFirst(margin) : line[...]
            return trimmed.isEmpty ? "" : "    " + trimmed
        }.joined(separator: "\n")
    }

    private func isComparable(_ fieldName: String, in entity: EntityDeclaration) -> Bool {
        guard let field = entity.fields.first(where: { $0.name.value == fieldName }) else { return true }
        guard case .named(let name) = field.type.value.unwrapped else { return false }
        if ["Bool", "UUID", "URL", "Data"].contains(name) { return false }
        if Self.builtinTypes.contains(name) || schemaEnums[name] != nil { return true }
        return declaredInheritance(of: name, inEntity: entity.name.value)?.contains("Comparable") ?? false
    }

    // MARK: Members

    /// The alias of a generic type spelled `Base<Arguments>` (optionally `?`): its name
    /// (`ComparableBoxOfInt`, `PairOfStringAndInt`), the spelling it stands for, and whether
    /// the field is optional. Nil for anything else.
    static func genericAlias(_ text: String) -> (name: String, spelling: String, isOptional: Bool)? {
        var spelling = text.filter { !$0.isWhitespace }
        let isOptional = spelling.hasSuffix("?")
        if isOptional { spelling.removeLast() }
        guard let open = spelling.firstIndex(of: "<"), spelling.hasSuffix(">"), open != spelling.startIndex else { return nil }
        let base = spelling[..<open]
        guard base.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }) else { return nil }
        let arguments = spelling[spelling.index(after: open)..<spelling.index(before: spelling.endIndex)]
        let words = arguments.split(whereSeparator: { !($0.isLetter || $0.isNumber) }).map { $0.prefix(1).uppercased() + $0.dropFirst() }
        guard !words.isEmpty else { return nil }
        let name = base.replacingOccurrences(of: ".", with: "") + "Of" + words.joined(separator: "And")
        return (name, spelling, isOptional)
    }

    /// `let name: Type = default`.
    private mutating func convertField(_ member: SwiftDeclaration, in input: Input) -> FieldDeclaration? {
        let nameIndex = member.keywordIndex + 1
        let end = member.tokens.upperBound
        guard nameIndex + 2 <= end, input.tokens[nameIndex + 1].isPunctuation(":") else {
            diagnostics.error("stored property '\(member.name ?? "?")' needs a type annotation to move into a schema",
                              at: input.tokens[nameIndex].location, hint: "write its type: 'let \(member.name ?? "name"): Type'")
            return nil
        }
        var equals = nameIndex + 2
        var depth = 0
        while equals <= end {
            let token = input.tokens[equals]
            if token.isPunctuation("[") || token.isPunctuation("(") || token.isPunctuation("<") { depth += 1 }
            if token.isPunctuation("]") || token.isPunctuation(")") || token.isPunctuation(">") { depth -= 1 }
            if depth == 0, token.isPunctuation("=") { break }
            equals += 1
        }
        let typeLocation = input.tokens[nameIndex + 2].location
        let typeText = text((nameIndex + 2)...(equals - 1), in: input)
        var (type, typeProblems) = DSLParser.parseType(typeText, at: SourceLocation(path: typeLocation.path, line: typeLocation.line, column: typeLocation.column - 1))
        // A generic type (`ComparableBox<Int>`, optional or not) is named through a typealias
        // the kept Swift declares (`ComparableBoxOfInt`), as nested types are.
        if type == nil || !typeProblems.isEmpty, let alias = Self.genericAlias(typeText) {
            type = alias.isOptional ? .optional(.named(alias.name)) : .named(alias.name)
            typeProblems = []
            genericAliases[alias.name] = alias.spelling
        }
        guard let type, typeProblems.isEmpty else {
            diagnostics.error("type '\(typeText)' of '\(member.name ?? "?")' cannot be written in a schema", at: typeLocation,
                              hint: "schema fields use named types, optionals, arrays and dictionaries; wrap others in a Codable type")
            return nil
        }
        let nameToken = input.tokens[nameIndex]
        var field = FieldDeclaration(name: Located(nameToken.text, at: nameToken.location), type: Located(type, at: typeLocation),
                                     isMutable: member.keyword == "var")
        field.documentation = member.documentation
        if nameToken.text == "id", field.isMutable {
            field.isMutable = false
            diagnostics.append(.warning("'var id' becomes 'let id': an entity's id never changes", at: nameToken.location))
        }
        if equals < end {
            let valueText = text((equals + 1)...end, in: input)
            let valueLocation = input.tokens[equals + 1].location
            let (value, problems) = DSLParser.parseDefaultValue(valueText, at: valueLocation)
            if let value, problems.isEmpty {
                if value != .nil { field.defaultValue = Located(value, at: valueLocation) }
            } else {
                diagnostics.error("default value '\(valueText)' of '\(nameToken.text)' is not a constant a schema can hold", at: valueLocation,
                                  hint: "schema defaults are literals, '.case', '[]' or '[:]'; drop it and pass the value where the entity is made")
            }
        }
        return field
    }

    /// `@Relationship(.required, inverse: \.messages, deleteRule: .cascade) var chat: Chat?`.
    private mutating func convertRelation(_ member: SwiftDeclaration, in input: Input) -> RelationDeclaration? {
        guard let field = convertField(member, in: input) else { return nil }
        let attribute = member.attribute("Relationship")!
        let type = field.type.value.unwrapped
        let target: String
        let isToMany: Bool
        switch type {
        case .named(let name): (target, isToMany) = (name, false)
        case .array(.named(let name)): (target, isToMany) = (name, true)
        default:
            diagnostics.error("relation '\(field.name.value)' must have type 'Entity?' or '[Entity]?'", at: field.type.location)
            return nil
        }
        var relation = RelationDeclaration(name: field.name, target: Located(target, at: field.type.location), isToMany: isToMany)
        relation.documentation = field.documentation
        for argument in arguments(attribute, in: input) {
            switch (argument.label, argument.value) {
            case (nil, ".required"):
                if isToMany {
                    diagnostics.append(.warning("'.required' on to-many relation '\(field.name.value)' is dropped", at: argument.location,
                                                hint: "an empty list already means no related entities"))
                } else {
                    relation.isRequired = Located(true, at: argument.location)
                }
            case (nil, ".optional"): break
            case ("inverse", let path) where Self.keyPathMember(path) != nil:
                relation.inverse = Located(Self.keyPathMember(path)!, at: argument.location)
            case ("deleteRule", ".cascade"): relation.deleteRule = .cascade
            case ("deleteRule", ".nullify"): relation.deleteRule = .nullify
            default:
                diagnostics.append(.warning("relationship argument '\(argument.text)' is not translated", at: argument.location,
                                            hint: "supported: .required, inverse: \\.name, deleteRule: .cascade or .nullify"))
            }
        }
        return relation
    }

    /// `@Index<Self>(\.a, \.b)`, `@Unique<Self>(\.a, collisions: .upsert)`, `@FullTextIndex<Self>(\.a)`.
    private mutating func convertIndex(_ member: SwiftDeclaration, in input: Input) -> IndexDeclaration? {
        let kinds: [String: IndexDeclaration.Kind] = ["Index": .ordered, "HashIndex": .hash, "Unique": .unique, "FullTextIndex": .fulltext]
        guard let attribute = member.attributes.first(where: { kinds[$0.name] != nil }) else { return nil }
        var index = IndexDeclaration(kind: Located(kinds[attribute.name]!, at: attribute.location), fields: [], location: attribute.location)
        for argument in arguments(attribute, in: input) {
            if argument.label == nil, var path = Self.keyPathMember(argument.value) {
                let descending = path.hasSuffix(".desc")
                if descending { path.removeLast(5) }
                index.fields.append(.init(name: Located(path, at: argument.location), descending: descending))
            } else if argument.label == "collisions", argument.value.hasPrefix(".") {
                let name = String(argument.value.dropFirst())
                let collision: IndexDeclaration.Collision = name == "throw" ? .throw : name == "upsert" ? .upsert : .resolver(name)
                if collision != .throw { index.collision = Located(collision, at: argument.location) }
            } else {
                diagnostics.append(.warning("index argument '\(argument.text)' is not translated", at: argument.location))
            }
        }
        return index
    }

    /// `{ .replace }`, `{ .patch }`, `{ Self.patch }`, `{ MergeStrategy(.patch(\.a), .append(\.b)) }`; nil
    /// (with a warning) for anything else.
    private mutating func convertMerge(_ member: SwiftDeclaration, which: MergeDeclaration.Which, in input: Input) -> MergeDeclaration? {
        let location = input.tokens[member.keywordIndex].location
        guard let body = member.body else { return nil }
        var words = body.map { input.tokens[$0].text }.filter { $0 != "return" }.joined()
        for prefix in ["MergeStrategy<Self>.", "MergeStrategy.", "Self."] where words.hasPrefix(prefix) { words = "." + words.dropFirst(prefix.count) }
        var rules: [MergeDeclaration.Rule] = []
        switch words {
        case ".replace": rules = [.init(kind: .replace, fields: [], location: location)]
        case ".patch", ".patch()": rules = [.init(kind: .patch, fields: [], location: location)]
        case let text where text.hasPrefix(".lastWriteWins(") && text.hasSuffix(")"):
            // `.lastWriteWins(.replace, comparedBy: \.updatedAt)`: replace when newer, which is
            // what the schema's lastWriteWins(field) does.
            let parts = Self.splitTopLevel(String(text.dropFirst(15).dropLast()))
            if let compared = parts.last, compared.hasPrefix("comparedBy:"), let field = Self.keyPathMember(String(compared.dropFirst(11))),
               parts.dropLast().allSatisfy({ $0 == ".replace" }) {
                rules = [.init(kind: .lastWriteWins, fields: [Located(field, at: location)], location: location)]
            }
        default:
            let inner = words.hasPrefix("MergeStrategy(") && words.hasSuffix(")") ? String(words.dropFirst(14).dropLast()) : nil
            for part in inner.map(Self.splitTopLevel) ?? [] {
                guard let open = part.firstIndex(of: "("), part.hasSuffix(")"), part.hasPrefix("."),
                      let kind = MergeDeclaration.Rule.Kind(rawValue: String(part[part.index(after: part.startIndex)..<open])), kind != .lastWriteWins,
                      case let paths = Self.splitTopLevel(String(part[part.index(after: open)..<part.index(before: part.endIndex)])),
                      paths.allSatisfy({ Self.keyPathMember($0) != nil }) else {
                    rules = []
                    break
                }
                rules.append(.init(kind: kind, fields: paths.map { Located(Self.keyPathMember($0)!, at: location) }, location: location))
            }
        }
        guard !rules.isEmpty else {
            diagnostics.append(.warning("\(member.name ?? "merge strategy") is not translated: the generated entity uses the schema's default",
                                        at: location, hint: "write it as 'merge \(which.rawValue): ...' in the schema (replace, patch, patch(a), append(a), lastWriteWins(a)); the original is kept as a comment"))
            return nil
        }
        return MergeDeclaration(which: which, rules: rules, location: location)
    }

    /// The member a key path names, whichever spelling Swift accepts for it: `\\.a`,
    /// `\\Self.a`, `\\Message.a`, `\\Models.Message.a` (leading type names, capitalized, are
    /// the root); nil for anything that is not a key path.
    static func keyPathMember(_ text: String) -> String? {
        guard text.hasPrefix("\\") else { return nil }
        var components = text.dropFirst().split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if components.first == "" {
            components.removeFirst()
        } else {
            while components.count > 1, let first = components.first?.first, first.isUppercase || components.first == "Self" {
                components.removeFirst()
            }
        }
        guard let head = components.first, !head.isEmpty, !(head.first?.isUppercase ?? true) else { return nil }
        return components.joined(separator: ".")
    }

    /// The argument labels of an initializer's source text, in order (`_` for none); nil when
    /// it has no parameter list.
    static func parameterLabels(ofInit text: String) -> [String]? {
        guard let open = text.firstIndex(of: "(") else { return nil }
        var depth = 0
        var close: String.Index?
        for index in text[open...].indices {
            if text[index] == "(" { depth += 1 }
            if text[index] == ")" { depth -= 1; if depth == 0 { close = index; break } }
        }
        guard let close else { return nil }
        let list = text[text.index(after: open)..<close].trimmingCharacters(in: .whitespacesAndNewlines)
        guard !list.isEmpty else { return [] }
        let parameters = splitTopLevel(list)
        return parameters.map { parameter in
            let head = parameter.split(separator: ":", maxSplits: 1).first.map(String.init) ?? parameter
            return head.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).first.map(String.init) ?? ""
        }
    }

    /// Splits `a, f(b, c), d` at top-level commas: outside (), [] and generic arguments
    /// (`ToOne<User, OneWay, Required>`; the `>` of `->` closes nothing).
    static func splitTopLevel(_ text: String) -> [String] {
        var parts: [String] = [], current = "", depth = 0, previous: Character = " "
        for character in text {
            if "([<".contains(character) { depth += 1 }
            if ")]".contains(character) || (character == ">" && previous != "-") { depth -= 1 }
            previous = character
            if character == ",", depth == 0 { parts.append(current); current = ""; continue }
            current.append(character)
        }
        if !current.isEmpty { parts.append(current) }
        return parts
    }

    /// The comma-separated arguments of an attribute: `inverse: \.messages` -> label
    /// "inverse", value "\.messages".
    private func arguments(_ attribute: SwiftDeclaration.Attribute, in input: Input) -> [(label: String?, value: String, text: String, location: SourceLocation)] {
        guard let range = attribute.arguments, !range.isEmpty else { return [] }
        var result: [(label: String?, value: String, text: String, location: SourceLocation)] = []
        var start = range.lowerBound
        var depth = 0
        for position in range.lowerBound...range.upperBound {
            let atEnd = position == range.upperBound
            if !atEnd {
                let token = input.tokens[position]
                if token.isPunctuation("(") || token.isPunctuation("[") { depth += 1 }
                if token.isPunctuation(")") || token.isPunctuation("]") { depth -= 1 }
                guard token.isPunctuation(","), depth == 0 else { continue }
            }
            guard start < position else { start = position + 1; continue }
            let tokens = input.tokens[start..<position]
            var label: String?
            var valueTokens = tokens[...]
            if tokens.count > 2, tokens[start].kind == .identifier, tokens[start + 1].isPunctuation(":") {
                label = tokens[start].text
                valueTokens = tokens.dropFirst(2)
            }
            result.append((label, valueTokens.map(\.text).joined(), tokens.map(\.text).joined(), input.tokens[start].location))
            start = position + 1
        }
        return result
    }
}
