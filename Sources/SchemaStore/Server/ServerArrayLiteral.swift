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
        // Bytes, not characters: the literal is ASCII but for the text inside quotes, which
        // goes byte for byte (UTF-8 never uses `"` or `\` inside a multi-byte character).
        var literal: [UInt8] = [UInt8(ascii: "{")]
        literal.reserveCapacity(values.count * 8)
        for (index, value) in values.enumerated() {
            if index > 0 { literal.append(UInt8(ascii: ",")) }
            switch value {
            case .null: literal += "NULL".utf8
            case .integer(let integer): ServerLiteralBytes.append(integer, to: &literal)
            case .real(let real): ServerLiteralBytes.append(real, to: &literal)
            case .text(let text):
                literal.append(UInt8(ascii: "\""))
                for byte in text.utf8 {
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { literal.append(UInt8(ascii: "\\")) }
                    literal.append(byte)
                }
                literal.append(UInt8(ascii: "\""))
            case .blob(let data):
                // `\x0102` as an element: its backslash escaped inside the quotes.
                literal += #""\\x"#.utf8
                ServerLiteralBytes.appendHex(data, to: &literal)
                literal.append(UInt8(ascii: "\""))
            }
        }
        literal.append(UInt8(ascii: "}"))
        return String(decoding: literal, as: UTF8.self)
    }
}
