/// Swift numeric literals as written in schemas: which ones are well formed, and which
/// values fit the field type they initialize. Anything accepted here compiles without error
/// or warning as a default of that type.
enum NumericLiteral {
    enum Kind { case integer, float }

    /// Whether `text` is a Swift integer or decimal float literal (with an optional leading
    /// `-`), or nil when it is neither.
    static func classify(_ text: String) -> Kind? {
        var body = Substring(text)
        if body.hasPrefix("-") { body = body.dropFirst() }
        for (prefix, digits) in [("0x", "0123456789abcdefABCDEF"), ("0o", "01234567"), ("0b", "01")] where body.hasPrefix(prefix) {
            let rest = body.dropFirst(2)
            guard let first = rest.first, digits.contains(first), rest.allSatisfy({ digits.contains($0) || $0 == "_" }) else { return nil }
            return .integer
        }
        // decimal-literal fraction? exponent?
        var rest = body
        guard takeDecimal(&rest) else { return nil }
        var kind = Kind.integer
        if rest.first == "." {
            rest = rest.dropFirst()
            guard takeDecimal(&rest) else { return nil }
            kind = .float
        }
        if rest.first == "e" || rest.first == "E" {
            rest = rest.dropFirst()
            if rest.first == "+" || rest.first == "-" { rest = rest.dropFirst() }
            guard takeDecimal(&rest) else { return nil }
            kind = .float
        }
        return rest.isEmpty ? kind : nil
    }

    /// Consumes `[0-9][0-9_]*`.
    private static func takeDecimal(_ text: inout Substring) -> Bool {
        guard let first = text.first, first.isASCII, first.isNumber else { return false }
        text = text.drop { ($0.isASCII && $0.isNumber) || $0 == "_" }
        return true
    }

    /// The integer's sign and magnitude, or nil magnitude when it exceeds 64 bits.
    static func integerValue(_ text: String) -> (negative: Bool, magnitude: UInt64?) {
        var body = Substring(text.filter { $0 != "_" })
        let negative = body.hasPrefix("-")
        if negative { body = body.dropFirst() }
        var radix = 10
        for (prefix, base) in [("0x", 16), ("0o", 8), ("0b", 2)] where body.hasPrefix(prefix) {
            body = body.dropFirst(2)
            radix = base
        }
        return (negative, UInt64(body, radix: radix))
    }

    /// The inclusive range of an integer type, as sign and magnitude bounds.
    private static let integerRanges: [String: (minimum: UInt64, maximum: UInt64)] = [
        "Int": (1 << 63, UInt64(Int64.max)), "Int64": (1 << 63, UInt64(Int64.max)),
        "Int32": (1 << 31, UInt64(Int32.max)), "Int16": (1 << 15, UInt64(Int16.max)), "Int8": (1 << 7, UInt64(Int8.max)),
        "UInt": (0, UInt64.max), "UInt64": (0, UInt64.max), "UInt32": (0, UInt64(UInt32.max)),
        "UInt16": (0, UInt64(UInt16.max)), "UInt8": (0, UInt64(UInt8.max)),
    ]

    /// Why the literal cannot initialize a value of the built-in numeric type `type`, or nil
    /// when it can (or `type` is not a built-in numeric type).
    static func rangeProblem(_ text: String, kind: Kind, type: String) -> String? {
        if let range = integerRanges[type] {
            guard kind == .integer else { return nil } // a float for an integer type is a type mismatch, reported elsewhere
            let (negative, magnitude) = integerValue(text)
            let bounds = "\(type) holds \(range.minimum == 0 ? "0" : "-\(range.minimum)") to \(range.maximum)"
            guard let magnitude else { return "integer literal \(text) does not fit in '\(type)' (\(bounds))" }
            if negative ? magnitude > range.minimum : magnitude > range.maximum {
                return "integer literal \(text) does not fit in '\(type)' (\(bounds))"
            }
            return nil
        }
        switch (kind, type) {
        case (.integer, "Double"), (.integer, "Float"):
            // Swift warns when an integer literal is not exactly representable.
            let (_, magnitude) = integerValue(text)
            let exact = magnitude.map { type == "Double" ? Double(exactly: $0) != nil : Float(exactly: $0) != nil } ?? false
            return exact ? nil : "integer literal \(text) is not exactly representable as '\(type)'; write it as a float literal (\(text).0)"
        case (.integer, "Decimal"):
            // Decimal's integer literals are Int.
            return rangeProblem(text, kind: .integer, type: "Int").map { _ in "integer literal \(text) does not fit in 'Decimal' literals (Int range); write it as a float literal" }
        case (.float, "Double"), (.float, "Decimal"), (.float, "Float"):
            let plain = text.filter { $0 != "_" }
            let finite = type == "Float" ? Float(plain).map(\.isFinite) : Double(plain).map(\.isFinite)
            if finite != true { return "float literal \(text) is out of range for '\(type)'" }
            let isZero = type == "Float" ? Float(plain) == 0 : Double(plain) == 0
            let hasNonZeroDigit = plain.split(whereSeparator: { $0 == "e" || $0 == "E" }).first?.contains { ("1"..."9").contains($0) } ?? false
            if isZero, hasNonZeroDigit { return "float literal \(text) is too small for '\(type)' and would become 0" }
            return nil
        default:
            return nil
        }
    }
}
