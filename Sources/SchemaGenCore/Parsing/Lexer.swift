/// Splits DSL text into tokens. `//` comments are dropped; `///` doc comments are kept as
/// tokens so the parser can attach them to the next declaration. Backquoted identifiers
/// (`` `default` ``) lex as plain identifiers.
struct Lexer {
    private let scalars: [Unicode.Scalar]
    private let path: String
    private var index = 0
    private var line = 1
    private var column = 1
    private(set) var diagnostics: [Diagnostic] = []

    init(text: String, path: String, startLine: Int = 1, startColumn: Int = 1) {
        self.scalars = Array(text.unicodeScalars)
        self.path = path
        self.line = startLine
        self.column = startColumn
    }

    private var location: SourceLocation { SourceLocation(path: path, line: line, column: column) }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private mutating func advance() {
        if scalars[index] == "\n" { line += 1; column = 1 } else { column += 1 }
        index += 1
    }

    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isAlphabetic
    }

    static func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierStart(scalar) || ("0"..."9").contains(scalar)
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
                tokens.append(Token(kind: .identifier(name), location: start))
            } else if scalar == "`" {
                advance()
                var name = ""
                while let next = peek(), Self.isIdentifierPart(next) { name.unicodeScalars.append(next); advance() }
                if peek() == "`" { advance() } else {
                    diagnostics.append(.error("unterminated backquoted identifier", at: start, hint: "close it with '`'"))
                }
                tokens.append(Token(kind: .identifier(name), location: start))
            } else if ("0"..."9").contains(scalar) || (scalar == "-" && peek(1).map { ("0"..."9").contains($0) } == true) {
                tokens.append(lexNumber(start))
            } else if scalar == "\"" {
                tokens.append(lexString(start))
            } else if "{}()[]:,.=?<>!".unicodeScalars.contains(scalar) {
                advance()
                tokens.append(Token(kind: .symbol(Character(scalar)), location: start))
            } else {
                advance()
                diagnostics.append(.error("unexpected character '\(scalar)'", at: start))
            }
        }
        tokens.append(Token(kind: .endOfFile, location: location))
        return tokens
    }

    private mutating func lexNumber(_ start: SourceLocation) -> Token {
        var text = ""
        var isFloat = false
        if peek() == "-" { text = "-"; advance() }
        while let next = peek() {
            if ("0"..."9").contains(next) || next == "_" {
                text.unicodeScalars.append(next); advance()
            } else if next == ".", !isFloat, let after = peek(1), ("0"..."9").contains(after) {
                isFloat = true
                text.unicodeScalars.append(next); advance()
            } else {
                break
            }
        }
        return Token(kind: isFloat ? .float(text) : .integer(text), location: start)
    }

    private mutating func lexString(_ start: SourceLocation) -> Token {
        advance()
        var value = ""
        while let next = peek(), next != "\"", next != "\n" {
            if next == "\\", let escaped = peek(1) {
                advance(); advance()
                switch escaped {
                case "n": value += "\n"
                case "t": value += "\t"
                case "\"": value += "\""
                case "\\": value += "\\"
                default: value.unicodeScalars.append(escaped)
                }
            } else {
                value.unicodeScalars.append(next)
                advance()
            }
        }
        if peek() == "\"" {
            advance()
        } else {
            diagnostics.append(.error("unterminated string literal", at: start, hint: "close the string with '\"' on the same line"))
        }
        return Token(kind: .string(value), location: start)
    }
}
