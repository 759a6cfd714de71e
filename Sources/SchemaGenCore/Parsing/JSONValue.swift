/// A JSON value with the location of its first character, so schema diagnostics can point
/// into `*.schema.json` files (Foundation's JSON parser keeps no positions).
indirect enum JSONValue: Sendable {
    case object([(key: Located<String>, value: JSONValue)], SourceLocation)
    case array([JSONValue], SourceLocation)
    case string(String, SourceLocation)
    /// The number's source text, kept so `1.50` stays `1.50` in generated code.
    case number(String, SourceLocation)
    case bool(Bool, SourceLocation)
    case null(SourceLocation)

    var location: SourceLocation {
        switch self {
        case .object(_, let l), .array(_, let l), .string(_, let l), .number(_, let l), .bool(_, let l), .null(let l): l
        }
    }

    /// What the value is, for messages: "a string", "an object".
    var kindDescription: String {
        switch self {
        case .object: "an object"
        case .array: "an array"
        case .string: "a string"
        case .number: "a number"
        case .bool: "a boolean"
        case .null: "null"
        }
    }
}

/// A strict JSON parser (RFC 8259) that records line and column of every value.
///
/// Columns count UTF-8 bytes, as swiftc does; a leading byte-order mark is skipped. Arrays
/// and objects nest at most ``maximumDepth`` levels: parsing is recursive, and a schema
/// document needs far fewer.
struct JSONParser {
    private let scalars: [Unicode.Scalar]
    private let path: String
    private var index = 0
    private var line = 1
    private var column = 1
    private var depth = 0

    static let maximumDepth = 64

    struct Failure: Error { var diagnostic: Diagnostic }

    init(text: String, path: String) {
        var scalars = Array(text.unicodeScalars)
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        self.scalars = scalars
        self.path = path
    }

    static func parse(text: String, path: String) -> Result<JSONValue, Failure> {
        var parser = JSONParser(text: text, path: path)
        do {
            let value = try parser.parseValue()
            parser.skipWhitespace()
            if parser.index < parser.scalars.count {
                throw parser.failure("unexpected text after the JSON document")
            }
            return .success(value)
        } catch let failure as Failure {
            return .failure(failure)
        } catch {
            return .failure(Failure(diagnostic: .error("\(error)", at: SourceLocation(path: path, line: 1, column: 1))))
        }
    }

    private var location: SourceLocation { SourceLocation(path: path, line: line, column: column) }

    private func failure(_ message: String, hint: String? = nil) -> Failure {
        Failure(diagnostic: .error(message, at: location, hint: hint))
    }

    private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func advance() {
        if scalars[index] == "\n" { line += 1; column = 1 } else { column += UTF8.width(scalars[index]) }
        index += 1
    }

    private mutating func skipWhitespace() {
        while let c = current, c == " " || c == "\n" || c == "\t" || c == "\r" { advance() }
    }

    private mutating func expect(_ scalar: Unicode.Scalar, _ context: String) throws {
        skipWhitespace()
        guard current == scalar else {
            throw failure("expected '\(scalar)' \(context), found \(current.map { "'\($0)'" } ?? "end of file")")
        }
        advance()
    }

    private mutating func parseValue() throws -> JSONValue {
        skipWhitespace()
        let start = location
        guard let c = current else { throw failure("expected a JSON value, found end of file") }
        switch c {
        case "{", "[":
            guard depth < Self.maximumDepth else {
                throw failure("JSON nests deeper than \(Self.maximumDepth) levels", hint: "a schema document needs a handful; check for a generated or corrupted file")
            }
            depth += 1
            defer { depth -= 1 }
            return c == "{" ? try parseObject(start) : try parseArray(start)
        case "\"": return .string(try parseString(), start)
        case "t": try parseWord("true"); return .bool(true, start)
        case "f": try parseWord("false"); return .bool(false, start)
        case "n": try parseWord("null"); return .null(start)
        case "-", "0"..."9": return .number(try parseNumber(), start)
        default: throw failure("unexpected character \(SwiftName.describe(c))", hint: "JSON values are objects, arrays, strings, numbers, true, false or null")
        }
    }

    private mutating func parseWord(_ word: String) throws {
        for scalar in word.unicodeScalars {
            guard current == scalar else { throw failure("invalid literal; expected '\(word)'") }
            advance()
        }
    }

    private mutating func parseObject(_ start: SourceLocation) throws -> JSONValue {
        advance()
        var members: [(key: Located<String>, value: JSONValue)] = []
        skipWhitespace()
        if current == "}" { advance(); return .object(members, start) }
        while true {
            skipWhitespace()
            let keyLocation = location
            guard current == "\"" else { throw failure("expected a quoted member name") }
            let key = try parseString()
            try expect(":", "after member name \"\(key)\"")
            members.append((Located(key, at: keyLocation), try parseValue()))
            skipWhitespace()
            if current == "," { advance(); continue }
            if current == "}" { advance(); return .object(members, start) }
            throw failure("expected ',' or '}' in object", hint: current == "\"" ? "add a ',' between members" : nil)
        }
    }

    private mutating func parseArray(_ start: SourceLocation) throws -> JSONValue {
        advance()
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == "]" { advance(); return .array(elements, start) }
        while true {
            elements.append(try parseValue())
            skipWhitespace()
            if current == "," { advance(); continue }
            if current == "]" { advance(); return .array(elements, start) }
            throw failure("expected ',' or ']' in array")
        }
    }

    private mutating func parseString() throws -> String {
        advance()
        var value = ""
        while let c = current, c != "\"" {
            if c.value < 0x20 {
                throw failure(c == "\n" ? "unterminated string" : "control character \(SwiftName.describe(c)) in string", hint: c == "\n" ? nil : "write it escaped, e.g. \\n or \\u0009")
            }
            guard c == "\\" else {
                value.unicodeScalars.append(c)
                advance()
                continue
            }
            advance()
            guard let escaped = current else { break }
            switch escaped {
            case "n": value += "\n"
            case "t": value += "\t"
            case "r": value += "\r"
            case "b": value += "\u{8}"
            case "f": value += "\u{C}"
            case "\"", "\\", "/": value.unicodeScalars.append(escaped)
            case "u":
                let code = try parseHexQuad()
                if (0xD800...0xDBFF).contains(code) {
                    // A UTF-16 surrogate pair: \uD83D\uDE00.
                    guard scalars.count > index + 2, scalars[index + 1] == "\\", scalars[index + 2] == "u" else {
                        throw failure("unpaired surrogate '\\u\(String(code, radix: 16, uppercase: true))'")
                    }
                    advance(); advance()
                    let low = try parseHexQuad()
                    guard (0xDC00...0xDFFF).contains(low), let scalar = Unicode.Scalar(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)) else {
                        throw failure("invalid surrogate pair")
                    }
                    value.unicodeScalars.append(scalar)
                } else if let scalar = Unicode.Scalar(code) {
                    value.unicodeScalars.append(scalar)
                } else {
                    throw failure("unpaired surrogate '\\u\(String(code, radix: 16, uppercase: true))'")
                }
            default:
                throw failure("invalid escape '\\\(escaped)' in string", hint: "JSON escapes are \\\", \\\\, \\/, \\b, \\f, \\n, \\r, \\t and \\uXXXX")
            }
            advance()
        }
        guard current == "\"" else { throw failure("unterminated string") }
        advance()
        return value
    }

    /// The four hex digits after `\u`; leaves `current` on the last one.
    private mutating func parseHexQuad() throws -> UInt32 {
        var hex = ""
        for _ in 0..<4 {
            advance()
            guard let digit = current, digit.properties.isASCIIHexDigit else { throw failure("incomplete \\u escape") }
            hex.unicodeScalars.append(digit)
        }
        return UInt32(hex, radix: 16)!
    }

    /// A number in JSON's grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    private mutating func parseNumber() throws -> String {
        var text = ""
        while let c = current, c == "-" || c == "+" || c == "." || c == "e" || c == "E" || ("0"..."9").contains(c) {
            text.unicodeScalars.append(c)
            advance()
        }
        guard Self.isJSONNumber(text) else {
            throw failure("invalid number '\(SwiftName.clipped(text))'", hint: "JSON numbers look like 42, -7, 1.5 or 2e10 (no leading zeros, '+' or trailing '.')")
        }
        return text
    }

    static func isJSONNumber(_ text: String) -> Bool {
        var rest = Substring(text)
        func digits() -> Int {
            let run = rest.prefix { ("0"..."9").contains($0) }
            rest = rest.dropFirst(run.count)
            return run.count
        }
        if rest.first == "-" { rest = rest.dropFirst() }
        if rest.first == "0" {
            rest = rest.dropFirst()
        } else if digits() == 0 {
            return false
        }
        if rest.first == "." {
            rest = rest.dropFirst()
            if digits() == 0 { return false }
        }
        if rest.first == "e" || rest.first == "E" {
            rest = rest.dropFirst()
            if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
            if digits() == 0 { return false }
        }
        return rest.isEmpty
    }
}
