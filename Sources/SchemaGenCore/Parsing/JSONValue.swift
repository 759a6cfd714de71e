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
struct JSONParser {
    private let scalars: [Unicode.Scalar]
    private let path: String
    private var index = 0
    private var line = 1
    private var column = 1

    struct Failure: Error { var diagnostic: Diagnostic }

    init(text: String, path: String) {
        scalars = Array(text.unicodeScalars)
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
        if scalars[index] == "\n" { line += 1; column = 1 } else { column += 1 }
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
        case "{": return try parseObject(start)
        case "[": return try parseArray(start)
        case "\"": return .string(try parseString(), start)
        case "t": try parseWord("true"); return .bool(true, start)
        case "f": try parseWord("false"); return .bool(false, start)
        case "n": try parseWord("null"); return .null(start)
        case "-", "0"..."9": return .number(try parseNumber(), start)
        default: throw failure("unexpected character '\(c)'", hint: "JSON values are objects, arrays, strings, numbers, true, false or null")
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
            if c == "\n" { throw failure("unterminated string") }
            if c == "\\" {
                advance()
                guard let escaped = current else { break }
                switch escaped {
                case "n": value += "\n"
                case "t": value += "\t"
                case "r": value += "\r"
                case "b": value += "\u{8}"
                case "f": value += "\u{C}"
                case "u":
                    var hex = ""
                    for _ in 0..<4 {
                        advance()
                        guard let digit = current else { throw failure("incomplete \\u escape") }
                        hex.unicodeScalars.append(digit)
                    }
                    guard let code = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(code) else {
                        throw failure("invalid \\u escape '\\u\(hex)'")
                    }
                    value.unicodeScalars.append(scalar)
                default: value.unicodeScalars.append(escaped)
                }
                advance()
            } else {
                value.unicodeScalars.append(c)
                advance()
            }
        }
        guard current == "\"" else { throw failure("unterminated string") }
        advance()
        return value
    }

    private mutating func parseNumber() throws -> String {
        var text = ""
        while let c = current, c == "-" || c == "+" || c == "." || c == "e" || c == "E" || ("0"..."9").contains(c) {
            text.unicodeScalars.append(c)
            advance()
        }
        guard Double(text) != nil else { throw failure("invalid number '\(text)'") }
        return text
    }
}
