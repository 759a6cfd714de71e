/// One declaration in Swift source, located by token indices: its documentation, attributes
/// and modifiers, the keyword that says what it is, its name, and the braces of its body.
struct SwiftDeclaration {
    /// `@Relationship(.required, inverse: \.messages)`: the name, the generic argument text
    /// (`Self` in `@Index<Self>`), and the tokens between the parentheses (nil without them).
    struct Attribute {
        var name: String
        var generic: String?
        var arguments: Range<Int>?
        var location: SourceLocation
    }

    var documentation: [String] = []
    var attributes: [Attribute] = []
    var modifiers: [String] = []
    /// `struct`, `enum`, `extension`, `let`, `var`, `func`, `init`, `case`, `import`...; nil
    /// when the declaration starts with something else (a statement, say).
    var keyword: String?
    /// The index of the keyword token (or of the first token after attributes and modifiers).
    var keywordIndex: Int
    var name: String?
    /// Every token of the declaration, documentation and attributes included.
    var tokens: ClosedRange<Int>
    /// The tokens strictly inside the first `{ }` at the declaration's own level, if any.
    var body: Range<Int>?

    func attribute(_ name: String) -> Attribute? { attributes.first { $0.name == name } }
}

/// Reads the declarations of a token range (a file, or the body of a type).
struct SwiftDeclarationReader {
    let tokens: [SwiftToken]

    static let modifiers: Set<String> = [
        "public", "private", "fileprivate", "internal", "package", "open", "final", "static", "mutating", "nonmutating",
        "override", "lazy", "weak", "unowned", "nonisolated", "indirect", "convenience", "required", "dynamic", "optional",
        "consuming", "borrowing", "isolated",
    ]

    /// Tokens that continue the statement before them when they start a line.
    private static let continuations: Set<String> = [".", "=", "{", "-", "&", "|", "?", ":", ",", ">", "<", "+", "*", "/", ")", "]"]
    /// Tokens after which a statement always continues on the next line.
    private static let openEnders: Set<String> = ["=", ",", ":", ".", "(", "[", "{", "&", "|", "+", "-", "*", "/", "<", "@", "\\"]

    func declarations(in range: Range<Int>) -> [SwiftDeclaration] {
        var result: [SwiftDeclaration] = []
        var index = range.lowerBound
        while index < range.upperBound {
            if tokens[index].isPunctuation(";") { index += 1; continue }
            let declaration = read(at: index, limit: range.upperBound)
            result.append(declaration)
            index = declaration.tokens.upperBound + 1
        }
        return result
    }

    /// The declaration starting at `start`.
    private func read(at start: Int, limit: Int) -> SwiftDeclaration {
        var index = start
        var declaration = SwiftDeclaration(keywordIndex: start, tokens: start...start)
        while index < limit, tokens[index].kind == .docComment {
            declaration.documentation.append(tokens[index].text)
            index += 1
        }
        while index + 1 < limit, tokens[index].isPunctuation("@"), tokens[index + 1].kind == .identifier {
            var attribute = SwiftDeclaration.Attribute(name: tokens[index + 1].text, location: tokens[index].location)
            index += 2
            if index < limit, tokens[index].isPunctuation("<"), tokens[index].start == tokens[index - 1].end {
                let close = matching(index, open: "<", close: ">", limit: limit)
                attribute.generic = (index + 1 < close ? (index + 1)..<close : close..<close).map { tokens[$0].text }.joined()
                index = close + 1
            }
            if index < limit, tokens[index].isPunctuation("("), tokens[index].start == tokens[index - 1].end {
                let close = matching(index, open: "(", close: ")", limit: limit)
                attribute.arguments = (index + 1)..<close
                index = close + 1
            }
            declaration.attributes.append(attribute)
        }
        while index < limit, tokens[index].kind == .identifier, Self.modifiers.contains(tokens[index].text) {
            declaration.modifiers.append(tokens[index].text)
            index += 1
            // `private(set)`
            if index < limit, tokens[index].isPunctuation("("), index + 2 < limit, tokens[index + 2].isPunctuation(")") {
                declaration.modifiers[declaration.modifiers.count - 1] += "(\(tokens[index + 1].text))"
                index += 3
            }
        }
        declaration.keywordIndex = Swift.min(index, limit - 1)
        if index < limit, tokens[index].kind == .identifier {
            declaration.keyword = tokens[index].text
            if index + 1 < limit, tokens[index + 1].kind == .identifier { declaration.name = tokens[index + 1].text }
        }
        let end = statementEnd(from: Swift.min(index, limit - 1), limit: limit)
        declaration.tokens = start...end
        // The body: the first brace block at the declaration's own level.
        var depth = 0
        for position in declaration.keywordIndex...end {
            let token = tokens[position]
            if token.isPunctuation("{"), depth == 0 {
                let close = matching(position, open: "{", close: "}", limit: end + 1)
                declaration.body = (position + 1)..<close
                break
            }
            if token.isPunctuation("(") || token.isPunctuation("[") { depth += 1 }
            if token.isPunctuation(")") || token.isPunctuation("]") { depth -= 1 }
        }
        return declaration
    }

    /// The index of the token closing the bracket opened at `open` (or the last index before
    /// `limit` when unbalanced).
    func matching(_ position: Int, open: String, close: String, limit: Int) -> Int {
        var depth = 0
        var index = position
        while index < limit {
            if tokens[index].isPunctuation(open) { depth += 1 }
            if tokens[index].isPunctuation(close) {
                depth -= 1
                if depth == 0 { return index }
            }
            index += 1
        }
        return limit - 1
    }

    /// The last token of the statement starting at `start`: brackets balanced, and the next
    /// token on a later line and not one that continues a statement.
    func statementEnd(from start: Int, limit: Int) -> Int {
        var depth = 0
        var index = start
        while index < limit {
            let token = tokens[index]
            if token.kind == .punctuation {
                if ["(", "[", "{"].contains(token.text) { depth += 1 }
                if [")", "]", "}"].contains(token.text) { depth -= 1 }
            }
            guard depth <= 0, index + 1 < limit else { index += 1; continue }
            let next = tokens[index + 1]
            let endsLine = next.location.line > token.location.line
            let continues = (next.kind == .punctuation && Self.continuations.contains(next.text))
                || next.isIdentifier("where") || next.isIdentifier("else")
                || (token.kind == .punctuation && Self.openEnders.contains(token.text))
            if depth < 0 || (endsLine && !continues) { return index }
            index += 1
        }
        return limit - 1
    }
}
