/// Parses the `*.schema` DSL into a ``SchemaDocument``.
///
/// The parser recovers from errors: a malformed member is reported and skipped up to the
/// next member keyword, a malformed declaration up to the next declaration keyword, so one
/// typo never hides the problems after it.
public struct DSLParser {
    private var tokens: [Token]
    private var index = 0
    private let path: String
    private var diagnostics: [Diagnostic] = []
    /// How many `[` of a type or default value enclose the current token.
    private var nesting = 0
    /// Declarations with a syntax error inside, see ``SchemaDocument/incompleteNames``.
    private var incompleteNames: Set<String> = []

    private struct ParseError: Error {}

    /// How deeply types (`[[String: [Int]]]`) and default values may nest. Parsing is
    /// recursive, so a limit keeps hostile input from exhausting the stack; 8 is far beyond
    /// real models and keeps the generated code quick for swiftc to type-check.
    public static let maximumNesting = 8

    static let declarationKeywords: Set<String> = ["entity", "enum", "struct", "external"]
    static let accessKeywords: Set<String> = Set(AccessLevel.allCases.map(\.rawValue))
    static let memberKeywords: Set<String> = ["let", "var", "relation", "index", "merge", "metadata"]

    public init(text: String, path: String, startLine: Int = 1, startColumn: Int = 1) {
        var lexer = Lexer(text: text, path: path, startLine: startLine, startColumn: startColumn)
        self.tokens = lexer.tokenize()
        self.path = path
        self.diagnostics = lexer.diagnostics
    }

    /// Parses the whole file; the document holds every declaration that could be read.
    public static func parse(text: String, path: String) -> (SchemaDocument, [Diagnostic]) {
        var parser = DSLParser(text: text, path: path)
        let document = parser.parseDocument()
        return (document, parser.diagnostics)
    }

    /// Parses a type written as text (the JSON syntax's `"type": "[String: Int]?"`), with
    /// diagnostics located inside that text.
    static func parseType(_ text: String, at location: SourceLocation) -> (TypeReference?, [Diagnostic]) {
        var parser = DSLParser(text: text, path: location.path, startLine: location.line, startColumn: location.column + 1)
        let type = try? parser.parseType()
        if type != nil, parser.current.kind != .endOfFile {
            parser.diagnostics.append(.error("unexpected \(parser.current.spelling) after type", at: parser.current.location))
        }
        return (parser.diagnostics.isEmpty ? type : nil, parser.diagnostics)
    }

    /// Parses a default value written as text (Swift source read by the SwiftletModel
    /// importer), with diagnostics located inside that text.
    static func parseDefaultValue(_ text: String, at location: SourceLocation) -> (DefaultValue?, [Diagnostic]) {
        var parser = DSLParser(text: text, path: location.path, startLine: location.line, startColumn: location.column)
        let value = try? parser.parseDefaultValue()
        if value != nil, parser.current.kind != .endOfFile {
            parser.diagnostics.append(.error("unexpected \(parser.current.spelling) after default value", at: parser.current.location))
        }
        return (parser.diagnostics.isEmpty ? value : nil, parser.diagnostics)
    }

    // MARK: Token helpers

    private var current: Token { tokens[index] }

    private mutating func advance() { if index < tokens.count - 1 { index += 1 } }

    private mutating func fail(_ message: String, at location: SourceLocation? = nil, hint: String? = nil) -> ParseError {
        diagnostics.append(.error(message, at: location ?? current.location, hint: hint))
        return ParseError()
    }

    private mutating func expectSymbol(_ symbol: Character, _ context: String) throws {
        guard current.isSymbol(symbol) else { throw fail("expected '\(symbol)' \(context), found \(current.spelling)") }
        advance()
    }

    private mutating func consumeSymbol(_ symbol: Character) -> Bool {
        guard current.isSymbol(symbol) else { return false }
        advance()
        return true
    }

    private mutating func expectIdentifier(_ what: String) throws -> Located<String> {
        guard let name = current.identifier else { throw fail("expected \(what), found \(current.spelling)") }
        let located = Located(name, at: current.location)
        advance()
        return located
    }

    private mutating func expectKeyword(_ keyword: String, _ context: String) throws {
        guard current.isKeyword(keyword) else { throw fail("expected '\(keyword)' \(context), found \(current.spelling)") }
        advance()
    }

    private mutating func documentation() -> [String] {
        var lines: [String] = []
        while case .docComment(let text) = current.kind {
            lines.append(text)
            advance()
        }
        return lines
    }

    /// Skips to the next token for which `stop` holds, stepping over bracketed groups.
    private mutating func recover(stoppingAt stop: (Token) -> Bool) {
        var depth = 0
        while current.kind != .endOfFile {
            if depth == 0, stop(current) { return }
            if current.isSymbol("(") || current.isSymbol("[") { depth += 1 }
            if current.isSymbol(")") || current.isSymbol("]") { depth = max(0, depth - 1) }
            if current.isSymbol("{") { depth += 1 }
            if current.isSymbol("}") {
                if depth == 0 { return }
                depth -= 1
            }
            advance()
        }
    }

    // MARK: Declarations

    mutating func parseDocument() -> SchemaDocument {
        var declarations: [Declaration] = []
        var aliases: [NamespaceAlias] = []
        var namespace: Located<[String]>?
        if current.isKeyword("namespace") {
            let keyword = current.location
            advance()
            if let names = try? parseDottedName() { namespace = Located(names, at: keyword) }
        }
        while current.kind != .endOfFile {
            if current.isKeyword("namespace") {
                diagnostics.append(.error("'namespace' must be the first line of a schema file, and come once", at: current.location,
                                          hint: "move it above every declaration"))
                advance()
                _ = try? parseDottedName()
                continue
            }
            if current.isKeyword("alias") {
                advance()
                do {
                    aliases.append(try parseAlias())
                } catch {
                    recover { token in
                        token.identifier.map { Self.declarationKeywords.contains($0) || Self.accessKeywords.contains($0) || $0 == "alias" } ?? false
                    }
                }
                continue
            }
            let start = index
            do {
                declarations.append(try parseDeclaration())
            } catch {
                if let name = declaredName(from: start) { incompleteNames.insert(name) }
                if index == start { advance() }
                recover { token in
                    token.identifier.map { Self.declarationKeywords.contains($0) || Self.accessKeywords.contains($0) } ?? false
                }
                if current.isSymbol("}") { advance() }
            }
        }
        var document = SchemaDocument(path: path, declarations: declarations, incompleteNames: incompleteNames, namespace: namespace)
        document.aliases = aliases
        return document
    }

    /// `alias RichProperty = IndexedRichProperty` (after the `alias` keyword).
    private mutating func parseAlias() throws -> NamespaceAlias {
        let name = try expectIdentifier("the name the namespace gives a type after 'alias'")
        try expectSymbol("=", "after the alias name (alias RichProperty = IndexedRichProperty)")
        let target = try expectIdentifier("a type of this file after '='")
        return NamespaceAlias(name: name, target: target)
    }

    /// `Models.V1`: identifiers separated by dots.
    private mutating func parseDottedName() throws -> [String] {
        var names = [try expectIdentifier("a namespace name after 'namespace'").value]
        while consumeSymbol(".") { names.append(try expectIdentifier("a name after '.'").value) }
        return names
    }

    /// The name a declaration starting at token `start` declares, if it got that far.
    private func declaredName(from start: Int) -> String? {
        var position = start
        while position < tokens.count, case .docComment = tokens[position].kind { position += 1 }
        if position < tokens.count, let word = tokens[position].identifier, Self.accessKeywords.contains(word) { position += 1 }
        guard position + 1 < tokens.count, let keyword = tokens[position].identifier else { return nil }
        if Self.declarationKeywords.contains(keyword) { return tokens[position + 1].identifier }
        // A misspelled keyword (`enity Chat {`) still names what it meant to declare.
        guard position + 2 < tokens.count, tokens[position + 2].isSymbol("{") || tokens[position + 2].isSymbol(":") else { return nil }
        return tokens[position + 1].identifier
    }

    /// Whether a top-level declaration starts here: a body that reaches one was not closed.
    private var atDeclarationStart: Bool {
        guard var word = current.identifier else { return false }
        if Self.accessKeywords.contains(word) {
            guard index + 1 < tokens.count, let next = tokens[index + 1].identifier else { return false }
            word = next
        }
        return Self.declarationKeywords.contains(word)
    }

    /// Ends a body: consumes its `}`, or reports that it is missing and ends the body here, so
    /// the declarations after it are still read as declarations (and nothing is lost).
    private mutating func closeBody(of what: String, openedAt location: SourceLocation) {
        if consumeSymbol("}") { return }
        diagnostics.append(.error("expected '}' to close the body of \(what), found \(current.spelling)", at: current.location,
                                  hint: "\(what) opens at \(location.line):\(location.column); add '}' before this"))
    }

    private mutating func parseDeclaration() throws -> Declaration {
        let docs = documentation()
        if current.kind == .endOfFile {
            throw fail("doc comment is not followed by a declaration")
        }
        var access = AccessLevel.internal
        if let word = current.identifier, let level = AccessLevel(rawValue: word) {
            access = level
            advance()
        }
        let keyword = current
        switch keyword.identifier {
        case "entity":
            advance()
            var entity = try parseEntity(at: keyword.location)
            entity.access = access
            entity.documentation = docs
            return .entity(entity)
        case "enum":
            advance()
            var declaration = try parseEnum()
            declaration.access = access
            declaration.documentation = docs
            return .enumeration(declaration)
        case "struct":
            advance()
            var declaration = try parseStruct()
            declaration.access = access
            declaration.documentation = docs
            return .structure(declaration)
        case "external":
            advance()
            return .external(try parseExternal())
        default:
            let hint = keyword.identifier.flatMap { Suggestion.didYouMean($0, in: Self.declarationKeywords) }
            throw fail("expected a declaration ('entity', 'enum', 'struct' or 'external'), found \(keyword.spelling)", hint: hint)
        }
    }

    private mutating func parseEntity(at location: SourceLocation) throws -> EntityDeclaration {
        let name = try expectIdentifier("an entity name")
        var entity = EntityDeclaration(name: name, location: location)
        if consumeSymbol(",") {
            try expectOption("renamedFrom", of: "entity '\(name.value)'")
            entity.renamedFrom = try parseFormerNames()
        }
        let open = current.location
        try expectSymbol("{", "to open the body of entity '\(name.value)'")
        while !current.isSymbol("}"), current.kind != .endOfFile, !atDeclarationStart {
            let start = index
            do {
                try parseMember(into: &entity)
            } catch {
                incompleteNames.insert(name.value)
                if index == start { advance() }
                recover { token in token.startsMember || token.isDeclarationKeyword }
            }
        }
        closeBody(of: "entity '\(name.value)'", openedAt: open)
        return entity
    }

    private mutating func parseMember(into entity: inout EntityDeclaration) throws {
        let docs = documentation()
        // Swift attributes (SwiftData's `@Attribute(.unique)`, SwiftletModel's `@Relationship`)
        // are reported with what the schema says instead, and the member after them is read.
        while current.isSymbol("@") { try skipAttribute() }
        let keyword = current
        switch keyword.identifier {
        case "let", "var":
            var field = try parseField()
            field.documentation = docs
            entity.fields.append(field)
        case "relation":
            advance()
            var relation = try parseRelation()
            relation.documentation = docs
            entity.relations.append(relation)
        case "index":
            advance()
            entity.indexes.append(try parseIndex(at: keyword.location))
        case "merge":
            advance()
            entity.mergeRules.append(try parseMerge(at: keyword.location))
        case "metadata":
            advance()
            repeat {
                let what = try expectIdentifier("'updatedAt' or 'softDelete' after 'metadata'")
                switch what.value {
                case "updatedAt": entity.tracksUpdatedAt = Located(true, at: keyword.location)
                case "softDelete": entity.keepsDeletedArchives = Located(true, at: keyword.location)
                default: throw fail("unknown metadata '\(what.value)'", at: what.location, hint: "metadata is 'updatedAt' or 'softDelete'")
                }
            } while consumeSymbol(",")
        default:
            if current.isSymbol("}") { return } // doc comment right before the closing brace
            let hint = keyword.identifier.flatMap { Suggestion.didYouMean($0, in: Self.memberKeywords) }
                ?? "members start with 'let', 'var', 'relation', 'index', 'merge' or 'metadata'"
            throw fail("expected a member, found \(keyword.spelling)", hint: hint)
        }
    }

    /// Reports a Swift attribute written before a member (`@Attribute(.unique) var slug`)
    /// with the schema's way to say it, and skips it (its parenthesized arguments too), so
    /// the member itself is still read.
    private mutating func skipAttribute() throws {
        let at = current.location
        advance()
        let name = try expectIdentifier("an attribute name after '@'")
        var arguments = ""
        if current.isSymbol("(") {
            var depth = 0
            repeat {
                if current.isSymbol("(") { depth += 1 }
                if current.isSymbol(")") { depth -= 1 }
                if case .endOfFile = current.kind { throw fail("unterminated arguments of '@\(name.value)'", at: at) }
                if let word = current.identifier { arguments += word + " " }
                advance()
            } while depth > 0
        }
        // The member the attribute is on: `var slug` or `let id`.
        let field = current.isKeyword("var") || current.isKeyword("let") ? tokens[Swift.min(index + 1, tokens.count - 1)].identifier : nil
        let subject = field ?? "field"
        let hint: String
        switch name.value {
        case "Attribute" where arguments.contains("unique"), "Unique":
            hint = "a unique field is an index in a schema: add 'index unique(\(subject))' to the entity"
        case "Index":
            hint = "indexes are members of the entity: 'index ordered(\(subject))' (or hash, unique, fulltext)"
        case "FullTextIndex":
            hint = "indexes are members of the entity: 'index fulltext(\(subject))'"
        case "Relationship":
            hint = "relations are members of their own: 'relation name: Target, inverse: other'"
        case "Transient":
            hint = "a schema holds stored data only; keep computed or transient values in a Swift extension of the generated type"
        default:
            hint = "schema members take no attributes: write the member alone and say the rest with 'index', 'relation', 'merge' or 'metadata'"
        }
        diagnostics.append(.error("attributes such as '@\(name.value)' are Swift, not part of the schema language", at: at, hint: hint))
    }

    // MARK: Members

    private mutating func parseField() throws -> FieldDeclaration {
        let isMutable = current.isKeyword("var")
        advance()
        let name = try expectIdentifier("a field name")
        try expectSymbol(":", "after field name '\(name.value)'")
        let typeLocation = current.location
        let type = try parseType()
        var field = FieldDeclaration(name: name, type: Located(type, at: typeLocation), isMutable: isMutable)
        if consumeSymbol("=") {
            let location = current.location
            field.defaultValue = Located(try parseDefaultValue(), at: location)
        }
        while consumeSymbol(",") {
            try expectOption("renamedFrom", of: "field '\(name.value)'")
            field.renamedFrom += try parseFormerNames()
        }
        return field
    }

    /// Reads the option name `option` (the only one a declaration of `what` takes).
    private mutating func expectOption(_ option: String, of what: String) throws {
        let word = try expectIdentifier("'\(option)'")
        guard word.value == option else {
            throw fail("unknown option '\(word.value)' for \(what)", at: word.location,
                       hint: Suggestion.didYouMean(word.value, in: [option]) ?? "the only option here is '\(option): oldName'")
        }
    }

    /// `: oldName` or `: [oldName, olderName]` after `renamedFrom`.
    private mutating func parseFormerNames() throws -> [Located<String>] {
        try expectSymbol(":", "after 'renamedFrom'")
        guard consumeSymbol("[") else { return [try expectIdentifier("the former name")] }
        var names: [Located<String>] = []
        repeat { names.append(try expectIdentifier("a former name")) } while consumeSymbol(",")
        try expectSymbol("]", "to close the list of former names")
        return names
    }

    mutating func parseType() throws -> TypeReference {
        var type: TypeReference
        if current.isSymbol("[") {
            try enterNesting("type")
            defer { nesting -= 1 }
            advance()
            let element = try parseType()
            if consumeSymbol(":") {
                let value = try parseType()
                try expectSymbol("]", "to close the dictionary type")
                type = .dictionary(key: element, value: value)
            } else {
                try expectSymbol("]", "to close the array type")
                type = .array(element)
            }
        } else {
            var name = try expectIdentifier("a type name").value
            while current.isSymbol("."), let next = tokens[index + 1].identifier {
                advance(); advance()
                name += "." + next
            }
            type = .named(name)
        }
        if current.isSymbol("?") {
            advance()
            type = .optional(type)
            if current.isSymbol("?") {
                throw fail("'\(type)?' nests optionals", hint: "write one '?': a schema field is either present or nil")
            }
        }
        return type
    }

    /// Steps one `[` deeper, or fails past ``maximumNesting``.
    private mutating func enterNesting(_ what: String) throws {
        guard nesting < Self.maximumNesting else {
            throw fail("\(what) nests deeper than \(Self.maximumNesting) levels", hint: "flatten it, e.g. with a struct that holds the inner collection")
        }
        nesting += 1
    }

    private mutating func parseDefaultValue() throws -> DefaultValue {
        let token = current
        switch token.kind {
        case .string(let value): advance(); return .string(value)
        case .integer(let text): advance(); return .integer(text)
        case .float(let text): advance(); return .float(text)
        case .identifier("true"): advance(); return .bool(true)
        case .identifier("false"): advance(); return .bool(false)
        case .identifier("nil"): advance(); return .nil
        case .symbol("."):
            advance()
            return .member(try expectIdentifier("a member name after '.'").value)
        case .symbol("["):
            try enterNesting("default value")
            defer { nesting -= 1 }
            advance()
            if consumeSymbol(":") {
                try expectSymbol("]", "to close the empty dictionary '[:]'")
                return .emptyDictionary
            }
            var elements: [DefaultValue] = []
            while !current.isSymbol("]") {
                elements.append(try parseDefaultValue())
                if !consumeSymbol(",") { break }
            }
            try expectSymbol("]", "to close the array literal")
            return .array(elements)
        default:
            throw fail("expected a default value (a literal, '.case', '[]' or '[:]'), found \(token.spelling)")
        }
    }

    private mutating func parseRelation() throws -> RelationDeclaration {
        let name = try expectIdentifier("a relation name")
        try expectSymbol(":", "after relation name '\(name.value)'")
        let isToMany = consumeSymbol("[")
        let target = try expectIdentifier("the related entity's name")
        if isToMany { try expectSymbol("]", "to close the to-many relation type") }
        if current.isSymbol("?") {
            throw fail("relation types are not written optional", hint: "to-one relations are optional unless marked 'required'; remove '?'")
        }
        var relation = RelationDeclaration(name: name, target: target, isToMany: isToMany)
        while consumeSymbol(",") {
            let option = try expectIdentifier("a relation option ('required', 'inverse', 'onDelete' or 'renamedFrom')")
            switch option.value {
            case "required":
                relation.isRequired = Located(true, at: option.location)
            case "inverse":
                try expectSymbol(":", "after 'inverse'")
                relation.inverse = try expectIdentifier("the name of the inverse relation")
            case "onDelete":
                try expectSymbol(":", "after 'onDelete'")
                let rule = try expectIdentifier("'cascade' or 'nullify'")
                guard let parsed = RelationDeclaration.DeleteRule(rawValue: rule.value) else {
                    throw fail("unknown delete rule '\(rule.value)'", at: rule.location, hint: "use 'cascade' or 'nullify'")
                }
                relation.deleteRule = parsed
            case "renamedFrom":
                relation.renamedFrom += try parseFormerNames()
            default:
                throw fail("unknown relation option '\(option.value)'", at: option.location,
                           hint: Suggestion.didYouMean(option.value, in: ["required", "inverse", "onDelete", "renamedFrom"])
                               ?? "relation options are 'required', 'inverse: name', 'onDelete: cascade|nullify' and 'renamedFrom: oldName'")
            }
        }
        return relation
    }

    private mutating func parseIndex(at location: SourceLocation) throws -> IndexDeclaration {
        let kindToken = try expectIdentifier("an index kind ('ordered', 'hash', 'unique' or 'fulltext')")
        guard let kind = IndexDeclaration.Kind(rawValue: kindToken.value) else {
            throw fail("unknown index kind '\(kindToken.value)'", at: kindToken.location,
                       hint: Suggestion.didYouMean(kindToken.value, in: IndexDeclaration.Kind.allCases.map(\.rawValue))
                           ?? "index kinds are 'ordered', 'hash', 'unique' and 'fulltext'")
        }
        var index = IndexDeclaration(kind: Located(kind, at: kindToken.location), fields: [], location: location)
        try expectSymbol("(", "after index kind '\(kind.rawValue)'")
        repeat {
            let name = try expectIdentifier("a field name")
            if name.value == "onCollision" && current.isSymbol(":") {
                advance()
                let policy = try expectIdentifier("'throw', 'upsert' or a resolver name")
                let collision: IndexDeclaration.Collision = switch policy.value {
                case "throw": .throw
                case "upsert": .upsert
                default: .resolver(policy.value)
                }
                index.collision = Located(collision, at: policy.location)
                continue
            }
            var field = IndexDeclaration.Field(name: name)
            if current.isKeyword("desc") { field.descending = true; advance() } else if current.isKeyword("asc") { advance() }
            index.fields.append(field)
        } while consumeSymbol(",")
        try expectSymbol(")", "to close the index field list")
        return index
    }

    private mutating func parseMerge(at location: SourceLocation) throws -> MergeDeclaration {
        let whichToken = try expectIdentifier("'default' or 'fragment'")
        guard let which = MergeDeclaration.Which(rawValue: whichToken.value) else {
            throw fail("unknown merge strategy slot '\(whichToken.value)'", at: whichToken.location, hint: "write 'merge default: ...' or 'merge fragment: ...'")
        }
        try expectSymbol(":", "after 'merge \(which.rawValue)'")
        var rules: [MergeDeclaration.Rule] = []
        repeat {
            let ruleToken = try expectIdentifier("a merge rule ('replace', 'patch', 'append' or 'lastWriteWins')")
            guard let kind = MergeDeclaration.Rule.Kind(rawValue: ruleToken.value) else {
                throw fail("unknown merge rule '\(ruleToken.value)'", at: ruleToken.location,
                           hint: Suggestion.didYouMean(ruleToken.value, in: MergeDeclaration.Rule.Kind.allCases.map(\.rawValue))
                               ?? "merge rules are 'replace', 'patch', 'append(fields)' and 'lastWriteWins(field)'")
            }
            var fields: [Located<String>] = []
            if consumeSymbol("(") {
                repeat { fields.append(try expectIdentifier("a field name")) } while consumeSymbol(",")
                try expectSymbol(")", "to close the merge rule's field list")
            }
            rules.append(MergeDeclaration.Rule(kind: kind, fields: fields, location: ruleToken.location))
        } while consumeSymbol(",")
        return MergeDeclaration(which: which, rules: rules, location: location)
    }

    // MARK: Enums, structs, externals

    private mutating func parseEnum() throws -> EnumDeclaration {
        let name = try expectIdentifier("an enum name")
        try expectSymbol(":", "after enum name '\(name.value)' (enums declare a raw type: String or Int)")
        let rawType = try expectIdentifier("the raw type ('String' or 'Int')")
        var declaration = EnumDeclaration(name: name, rawType: rawType)
        let open = current.location
        try expectSymbol("{", "to open the body of enum '\(name.value)'")
        while !current.isSymbol("}"), current.kind != .endOfFile, !atDeclarationStart {
            let start = index
            do {
                let docs = documentation()
                if current.isSymbol("}") { break }
                try expectKeyword("case", "in enum '\(name.value)'")
                repeat {
                    var item = EnumDeclaration.Case(name: try expectIdentifier("a case name"), documentation: docs)
                    if consumeSymbol("=") {
                        let location = current.location
                        item.rawValue = Located(try parseDefaultValue(), at: location)
                    }
                    declaration.cases.append(item)
                } while consumeSymbol(",")
            } catch {
                incompleteNames.insert(name.value)
                if index == start { advance() }
                recover { $0.isKeyword("case") || $0.isDeclarationKeyword }
            }
        }
        closeBody(of: "enum '\(name.value)'", openedAt: open)
        return declaration
    }

    private mutating func parseStruct() throws -> StructDeclaration {
        let name = try expectIdentifier("a struct name")
        var declaration = StructDeclaration(name: name)
        let open = current.location
        try expectSymbol("{", "to open the body of struct '\(name.value)'")
        while !current.isSymbol("}"), current.kind != .endOfFile, !atDeclarationStart {
            let start = index
            do {
                let docs = documentation()
                if current.isSymbol("}") { break }
                guard current.isKeyword("let") || current.isKeyword("var") else {
                    throw fail("expected a field ('let' or 'var') in struct '\(name.value)', found \(current.spelling)")
                }
                var field = try parseField()
                field.documentation = docs
                declaration.fields.append(field)
            } catch {
                incompleteNames.insert(name.value)
                if index == start { advance() }
                recover { $0.isKeyword("let") || $0.isKeyword("var") || $0.isDeclarationKeyword }
            }
        }
        closeBody(of: "struct '\(name.value)'", openedAt: open)
        return declaration
    }

    private mutating func parseExternal() throws -> ExternalDeclaration {
        let name = try expectIdentifier("the name of a Swift type declared elsewhere")
        var declaration = ExternalDeclaration(name: name)
        if consumeSymbol(":") {
            repeat {
                let conformance = try expectIdentifier("a protocol ('Equatable', 'Hashable' or 'Comparable')")
                guard let known = ExternalDeclaration.Conformance(rawValue: conformance.value) else {
                    throw fail("unsupported conformance '\(conformance.value)' for external type '\(name.value)'", at: conformance.location,
                               hint: "external types are always Codable & Sendable; list 'Equatable', 'Hashable' or 'Comparable' when they conform")
                }
                declaration.conformances.append(Located(known, at: conformance.location))
            } while consumeSymbol(",")
        }
        return declaration
    }
}
