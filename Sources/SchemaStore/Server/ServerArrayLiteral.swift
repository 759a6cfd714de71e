import Foundation
import SchemaRuntime

/// A column of values as one PostgreSQL array literal (`{"a","b",NULL}`), bound as a single
/// text parameter and cast to the column's array type: many rows then go in one statement
/// (`INSERT ... SELECT * FROM unnest($1::text[], $2::bigint[])`) with one parameter per
/// column, which the server reads far faster than thousands of placeholders.
enum ServerArrayLiteral {
    /// `values` as an array literal. Integers as digits; reals in their shortest spelling
    /// that reads back as the same double (PostgreSQL reads them correctly rounded), and
    /// `Infinity`, `-Infinity`, `NaN`; text double-quoted with `"` and `\` escaped; bytes as
    /// quoted `\x` hex; NULL as `NULL`.
    static func encode(_ values: [StoredValue]) -> String {
        var literal = "{"
        for (index, value) in values.enumerated() {
            if index > 0 { literal += "," }
            switch value {
            case .null: literal += "NULL"
            case .integer(let integer): literal += String(integer)
            case .real(let real):
                literal += real.isNaN ? "NaN" : real.isInfinite ? (real < 0 ? "-Infinity" : "Infinity") : "\(real)"
            case .text(let text):
                literal += "\""
                for character in text.unicodeScalars {
                    if character == "\"" || character == "\\" { literal += "\\" }
                    literal.unicodeScalars.append(character)
                }
                literal += "\""
            case .blob(let data):
                // `\x0102` as an element: its backslash escaped inside the quotes.
                literal += "\"\\\\x"
                for byte in data {
                    literal += String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
                }
                literal += "\""
            }
        }
        return literal + "}"
    }
}
