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
                appendField(value, to: &bytes)
            }
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    /// The rows `(term, id, count)` of full-text postings, grouped by term
    /// (``FullTextChanges/postingsByTerm()``): what ``encode(_:)`` spells for them, without
    /// a row of values per posting (a big write has millions), each term escaped once.
    static func encodePostings(_ postings: ArraySlice<(term: String, postings: [(id: StoredValue, count: Int32)])>) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(postings.reduce(0) { $0 + $1.postings.count } * 24)
        var term: [UInt8] = []
        for group in postings {
            term.removeAll(keepingCapacity: true)
            appendField(.text(group.term), to: &term)
            term.append(UInt8(ascii: "\t"))
            for (id, count) in group.postings {
                bytes += term
                appendField(id, to: &bytes)
                bytes.append(UInt8(ascii: "\t"))
                ServerLiteralBytes.append(Int64(count), to: &bytes)
                bytes.append(UInt8(ascii: "\n"))
            }
        }
        return bytes
    }

    /// One field's value, escaped for `COPY`'s text format.
    private static func appendField(_ value: StoredValue, to bytes: inout [UInt8]) {
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
}
