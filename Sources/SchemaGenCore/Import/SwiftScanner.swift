/// Splits Swift source into ``SwiftToken``s. Comments are dropped except documentation
/// comments; string literals (with interpolation, raw and multi-line forms) are single
/// tokens, so braces inside them never unbalance a body. Columns count UTF-8 bytes, as
/// swiftc does.
struct SwiftScanner {
    let scalars: [Unicode.Scalar]
    private let path: String
    private var index = 0
    private var line = 1
    private var column = 1

    init(text: String, path: String) {
        self.scalars = Array(text.unicodeScalars)
        self.path = path
    }

    /// The text of the scalars from `start` to `end` (exclusive).
    func text(_ start: Int, _ end: Int) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[start..<end])
        return String(view)
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        index + offset < scalars.count ? scalars[index + offset] : nil
    }

    private mutating func advance() {
        if scalars[index] == "\n" { line += 1; column = 1 } else { column += UTF8.width(scalars[index]) }
        index += 1
    }

    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool { scalar == "_" || scalar == "$" || scalar.properties.isAlphabetic }

    static func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierStart(scalar) || scalar.properties.numericType != nil || scalar.properties.generalCategory == .nonspacingMark
    }

    mutating func tokenize() -> [SwiftToken] {
        var tokens: [SwiftToken] = []
        while let scalar = peek() {
            let start = index
            let location = SourceLocation(path: path, line: line, column: column)
            func token(_ kind: SwiftToken.Kind, _ text: String? = nil) {
                tokens.append(SwiftToken(kind: kind, text: text ?? self.text(start, index), location: location, start: start, end: index))
            }
            if scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{FEFF}" {
                advance()
            } else if scalar == "/", peek(1) == "/" {
                let isDoc = peek(2) == "/" && peek(3) != "/"
                while let next = peek(), next != "\n" { advance() }
                if isDoc {
                    var content = text(start + 3, index)
                    if content.hasPrefix(" ") { content.removeFirst() }
                    token(.docComment, content)
                }
            } else if scalar == "/", peek(1) == "*" {
                let isDoc = peek(2) == "*" && peek(3) != "/"
                var depth = 0
                repeat {
                    if peek() == "/", peek(1) == "*" { depth += 1; advance() } else if peek() == "*", peek(1) == "/" { depth -= 1; advance() }
                    advance()
                } while depth > 0 && peek() != nil
                if isDoc { token(.docComment, text(start + 3, Swift.max(start + 3, index - 2))) }
            } else if scalar == "\"" || (scalar == "#" && (peek(1) == "\"" || peek(1) == "#")) {
                scanString()
                token(.string)
            } else if Self.isIdentifierStart(scalar) || scalar == "`" {
                if scalar == "`" { advance() }
                while let next = peek(), Self.isIdentifierPart(next) { advance() }
                if scalar == "`", peek() == "`" { advance() }
                token(.identifier, text(start, index).replacingOccurrences(of: "`", with: ""))
            } else if scalar.properties.numericType != nil {
                while let next = peek(), Self.isIdentifierPart(next) || (next == "." && peek(1).map { $0.properties.numericType != nil } == true) { advance() }
                token(.number)
            } else {
                advance()
                token(.punctuation)
            }
        }
        return tokens
    }

    /// A string literal at the cursor: `"..."`, `"""..."""`, raw `#"..."#`, with `\(...)`
    /// interpolations (which may hold strings and parentheses) skipped whole.
    private mutating func scanString() {
        var hashes = 0
        while peek() == "#" { hashes += 1; advance() }
        let multiline = peek() == "\"" && peek(1) == "\"" && peek(2) == "\""
        let quotes = multiline ? 3 : 1
        for _ in 0..<quotes { advance() }
        func closes() -> Bool {
            for offset in 0..<quotes where peek(offset) != "\"" { return false }
            for offset in 0..<hashes where peek(quotes + offset) != "#" { return false }
            return true
        }
        while let next = peek() {
            if closes() {
                for _ in 0..<(quotes + hashes) { advance() }
                return
            }
            if !multiline, next == "\n" { return }
            if next == "\\" {
                var offset = 1
                while offset <= hashes, peek(offset) == "#" { offset += 1 }
                if offset == hashes + 1, peek(offset) == "(" {
                    for _ in 0...offset { advance() }
                    var depth = 1
                    while let inner = peek(), depth > 0 {
                        if inner == "\"" { scanString(); continue }
                        if inner == "(" { depth += 1 } else if inner == ")" { depth -= 1 }
                        advance()
                    }
                    continue
                }
                advance()
                if peek() != nil { advance() }
                continue
            }
            advance()
        }
    }
}
