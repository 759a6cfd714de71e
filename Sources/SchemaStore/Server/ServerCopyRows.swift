import SchemaRuntime

/// Rows in the text format of PostgreSQL's `COPY ... FROM STDIN`
/// (``ServerConnection/copy(_:rows:)``): fields separated by tabs, each row ending in a
/// newline. The server reads each field with its column type's input function, as it reads
/// an element of an array literal (``ServerArrayLiteral``), so values are spelled alike:
/// integers in digits, reals in their shortest exact spelling, bytes as `\x` hex, NULL as
/// `\N`; in text, the backslash, tab, newline and carriage return are escaped.
enum ServerCopyRows {
    static func encode(_ rows: [[StoredValue]]) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rows.count * (rows.first?.count ?? 1) * 8)
        for row in rows {
            for (index, value) in row.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: "\t")) }
                switch value {
                case .null: bytes += #"\N"#.utf8
                case .integer(let integer): ServerLiteralBytes.append(integer, to: &bytes)
                case .real(let real): ServerLiteralBytes.append(real, to: &bytes)
                case .text(let text):
                    for byte in text.utf8 {
                        switch byte {
                        case UInt8(ascii: "\\"): bytes += #"\\"#.utf8
                        case UInt8(ascii: "\t"): bytes += #"\t"#.utf8
                        case UInt8(ascii: "\n"): bytes += #"\n"#.utf8
                        case UInt8(ascii: "\r"): bytes += #"\r"#.utf8
                        default: bytes.append(byte)
                        }
                    }
                case .blob(let data):
                    // `\x0102` for bytea's input, its backslash escaped for COPY's.
                    bytes += #"\\x"#.utf8
                    ServerLiteralBytes.appendHex(data, to: &bytes)
                }
            }
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }
}
