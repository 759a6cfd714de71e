/// A failed SQLite call: its result code and message.
struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_NOTADB`, ...).
    var code: Int32
    /// The extended result code.
    var extendedCode: Int32
    var message: String

    var description: String { "\(message) (SQLite error \(extendedCode))" }
}
