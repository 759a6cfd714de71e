/// Splits DSL text into tokens. `//` comments are dropped; `///` doc comments are kept as
/// tokens so the parser can attach them to the next declaration. Backquoted identifiers
/// (`` `default` ``) lex as plain identifiers.
///
/// Columns count UTF-8 bytes, as swiftc and editors do, so a position after an emoji is the
/// one an editor jumps to. A leading byte-order mark is skipped.
struct Lexer {
    private let scalars: [Unicode.Scalar]
    private let path: String
    private var index = 0
    private var line = 1
    private var column = 1
    private(set) var diagnostics: [Diagnostic] = []

    init(text: String, path: String, startLine: Int = 1, startColumn: Int = 1) {
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        self.scalars = scalars
        self.path = path
        self.line = startLine
        self.column = startColumn
    }

    private var location: SourceLocation { SourceLocation(path: path, line: line, column: column) }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private mutating func advance() {
        if scalars[index] == "\n" { line += 1; column = 1 } else { column += UTF8.width(scalars[index]) }
        index += 1
    }

    /// Where a word may start. Broader than the name rule (``SwiftName/identifierProblem(_:)``)
    /// so a name with a non-ASCII letter lexes as one word and gets one precise error.
    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isAlphabetic
    }

    static func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierStart(scalar) || ("0"..."9").contains(scalar) || scalar.properties.generalCategory == .nonspacingMark
    }

    static func isDigit(_ scalar: Unicode.Scalar?) -> Bool {
        scalar.map { ("0"..."9").contains($0) } ?? false
    }

    mutating func tokenize() -> [Token] {
        var tokens: [Token] = []
        while let scalar = peek() {
            let start = location
            if scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == ";" {
                advance()
            } else if scalar == "/", peek(1) == "/" {
                let isDoc = peek(2) == "/" && peek(3) != "/"
                var text = ""
                while let next = peek(), next != "\n" { text.unicodeScalars.append(next); advance() }
                if isDoc {
                    var content = String(text.dropFirst(3))
                    if content.hasPrefix(" ") { content.removeFirst() }
                    if content.hasSuffix("\r") { content.removeLast() }
                    tokens.append(Token(kind: .docComment(content), location: start))
                }
            } else if scalar == "/", peek(1) == "*" {
                advance(); advance()
                while peek() != nil, !(peek() == "*" && peek(1) == "/") { advance() }
                if peek() == nil {
                    diagnostics.append(.error("unterminated block comment", at: start, hint: "close it with '*/'"))
                } else {
                    advance(); advance()
                }
            } else if Self.isIdentifierStart(scalar) {
                var name = ""
                while let next = peek(), Self.isIdentifierPart(next) { name.unicodeScalars.append(next); advance() }
                tokens.append(identifier(name, at: start))
            } else if scalar == "`" {
                advance()
                var name = ""
                while let next = peek(), Self.isIdentifierPart(next) { name.unicodeScalars.append(next); advance() }
                if peek() == "`" { advance() } else {
                    diagnostics.append(.error("unterminated backquoted identifier", at: start, hint: "close it with '`'"))
                }
                tokens.append(identifier(name, at: start))
            } else if Self.isDigit(scalar) || (scalar == "-" && Self.isDigit(peek(1))) {
                tokens.append(lexNumber(start))
            } else if scalar == "\"" {
                tokens.append(lexString(start))
            } else if "{}()[]:,.=?<>!@".unicodeScalars.contains(scalar) {
                advance()
                tokens.append(Token(kind: .symbol(Character(scalar)), location: start))
            } else {
                advance()
                diagnostics.append(.error("unexpected character \(SwiftName.describe(scalar))", at: start,
                                          hint: scalar == "\u{FEFF}" ? "remove the byte-order mark; it is only allowed at the start of a file" : nil))
            }
        }
        tokens.append(Token(kind: .endOfFile, location: location))
        return tokens
    }

    /// An identifier token; a name that breaks the naming rule is reported here, once, and
    /// kept so parsing goes on.
    private mutating func identifier(_ name: String, at start: SourceLocation) -> Token {
        if let problem = SwiftName.identifierProblem(name) {
            diagnostics.append(.error(problem, at: start, hint: name.isEmpty ? "write a name between the backquotes" : nil))
        }
        return Token(kind: .identifier(name), location: start)
    }

    /// A number in Swift's literal syntax: decimal, `0x`/`0o`/`0b` integers, and decimal
    /// floats with a fraction and/or exponent (`1.5`, `2e10`, `1.5e-3`). `_` separates digits.
    private mutating func lexNumber(_ start: SourceLocation) -> Token {
        var text = ""
        if peek() == "-" { text = "-"; advance() }
        // Take the whole run a reader sees as one number, then check it against the grammar.
        var previous: Unicode.Scalar = "0"
        while let next = peek() {
            let isExponentSign = (next == "-" || next == "+") && (previous == "e" || previous == "E") && !text.hasPrefix("0x") && !text.hasPrefix("-0x")
            if Self.isIdentifierPart(next) || isExponentSign || (next == "." && Self.isDigit(peek(1))) {
                text.unicodeScalars.append(next); advance(); previous = next
            } else {
                break
            }
        }
        guard let kind = NumericLiteral.classify(text) else {
            diagnostics.append(.error("'\(SwiftName.clipped(text))' is not a valid number", at: start,
                                      hint: "write integers as 42, -7, 1_000, 0xFF, 0b1010 or 0o17, and floats as 1.5, 2e10 or 1.5e-3"))
            return Token(kind: .integer("0"), location: start)
        }
        return Token(kind: kind == .float ? .float(text) : .integer(text), location: start)
    }

    /// A string literal with Swift's escapes: `\0 \\ \t \n \r \" \'` and `\u{1F600}`.
    /// Interpolation and unknown escapes are errors, never silently dropped.
    private mutating func lexString(_ start: SourceLocation) -> Token {
        advance()
        var value = ""
        while let next = peek(), next != "\"", next != "\n" {
            guard next == "\\" else {
                value.unicodeScalars.append(next)
                advance()
                continue
            }
            let escapeStart = location
            advance()
            guard let escaped = peek(), escaped != "\n" else { break }
            advance()
            switch escaped {
            case "n": value += "\n"
            case "t": value += "\t"
            case "r": value += "\r"
            case "0": value += "\0"
            case "\"": value += "\""
            case "'": value += "'"
            case "\\": value += "\\"
            case "u":
                if let scalar = lexUnicodeEscape(at: escapeStart) { value.unicodeScalars.append(scalar) }
            case "(":
                diagnostics.append(.error("string interpolation is not supported in schema strings", at: escapeStart,
                                          hint: "defaults are constants; write '\\\\(' for a literal backslash and parenthesis"))
            default:
                diagnostics.append(.error("unknown escape sequence '\\\(escaped)' in string", at: escapeStart,
                                          hint: "valid escapes are \\0, \\\\, \\t, \\n, \\r, \\\", \\' and \\u{n} (1 to 8 hex digits)"))
            }
        }
        if peek() == "\"" {
            advance()
        } else {
            diagnostics.append(.error("unterminated string literal", at: start, hint: "close the string with '\"' on the same line"))
        }
        return Token(kind: .string(value), location: start)
    }

    /// The `{n}` of a `\u{n}` escape (the `\u` is consumed).
    private mutating func lexUnicodeEscape(at start: SourceLocation) -> Unicode.Scalar? {
        guard peek() == "{" else {
            diagnostics.append(.error("expected '{' after '\\u'", at: start, hint: "write Unicode escapes as \\u{1F600}"))
            return nil
        }
        advance()
        var hex = ""
        while let next = peek(), next != "}", next != "\"", next != "\n" { hex.unicodeScalars.append(next); advance() }
        guard peek() == "}" else {
            diagnostics.append(.error("unterminated '\\u{' escape", at: start, hint: "close it with '}'"))
            return nil
        }
        advance()
        guard (1...8).contains(hex.count), hex.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit }),
              let code = UInt32(hex, radix: 16) else {
            diagnostics.append(.error("'\\u{\(SwiftName.clipped(hex))}' needs 1 to 8 hexadecimal digits", at: start))
            return nil
        }
        guard let scalar = Unicode.Scalar(code) else {
            diagnostics.append(.error("'\\u{\(hex)}' is not a Unicode scalar value", at: start,
                                      hint: "scalars are 0 to 10FFFF, excluding the surrogates D800 to DFFF"))
            return nil
        }
        return scalar
    }
}
