/// A lexical token of the schema DSL.
struct Token: Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        case identifier(String)
        case string(String)
        case integer(String)
        case float(String)
        case docComment(String)
        case symbol(Character)
        case endOfFile
    }

    var kind: Kind
    var location: SourceLocation

    var identifier: String? {
        if case .identifier(let name) = kind { return name }
        return nil
    }

    /// Whether an entity member can start here (a member keyword or its doc comment):
    /// where error recovery resumes inside an entity.
    var startsMember: Bool {
        if case .docComment = kind { return true }
        return identifier.map(DSLParser.memberKeywords.contains) ?? false
    }

    /// Whether a declaration keyword (`entity`, `enum`, `struct`, `external`) is here: where
    /// recovery inside a body stops, because the body was probably not closed.
    var isDeclarationKeyword: Bool {
        identifier.map(DSLParser.declarationKeywords.contains) ?? false
    }

    func isSymbol(_ symbol: Character) -> Bool { kind == .symbol(symbol) }

    func isKeyword(_ keyword: String) -> Bool { kind == .identifier(keyword) }

    /// How the token reads in a message: `'entity'`, `end of file`.
    var spelling: String {
        switch kind {
        case .identifier(let name): "'\(name)'"
        case .string(let value): "string \"\(value)\""
        case .integer(let text), .float(let text): "number \(text)"
        case .docComment: "doc comment"
        case .symbol(let symbol): "'\(symbol)'"
        case .endOfFile: "end of file"
        }
    }
}
