import Foundation
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif
import SchemaRuntime

/// A prepared statement: bind ``StoredValue``s, step, read columns back.
final class SQLiteStatement {
    private let pointer: OpaquePointer
    private unowned let database: SQLiteDatabase

    init(_ pointer: OpaquePointer, database: SQLiteDatabase) {
        self.pointer = pointer
        self.database = database
    }

    deinit { sqlite3_finalize(pointer) }

    /// Clears bindings and rewinds, ready to run again.
    func reset() {
        sqlite3_reset(pointer)
        sqlite3_clear_bindings(pointer)
    }

    /// Binds `value` to parameter `index` (1-based, as in SQLite).
    func bind(_ value: StoredValue, at index: Int32) throws {
        let result: Int32 = switch value {
        case .null: sqlite3_bind_null(pointer, index)
        case .integer(let integer): sqlite3_bind_int64(pointer, index, integer)
        case .real(let real): sqlite3_bind_double(pointer, index, real)
        case .text(let text): sqlite3_bind_text(pointer, index, text, -1, Self.transient)
        case .blob(let data):
            data.withUnsafeBytes { bytes in
                // A zero-length blob needs a non-null pointer to stay a blob, not NULL.
                sqlite3_bind_blob64(pointer, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(bytes.count), Self.transient)
            }
        }
        guard result == SQLITE_OK else { throw database.currentError(result) }
    }

    /// Binds `values` to parameters 1...n.
    func bind<Values: Collection<StoredValue>>(_ values: Values) throws {
        for (offset, value) in values.enumerated() { try bind(value, at: Int32(offset + 1)) }
    }

    /// Advances to the next row; false when done.
    func step() throws -> Bool {
        let result = sqlite3_step(pointer)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.currentError(result)
        }
    }

    /// Runs a statement that returns no rows.
    func run<Values: Collection<StoredValue>>(_ values: Values) throws {
        try bind(values)
        while try step() {}
        sqlite3_reset(pointer)
    }

    /// Runs a statement that takes no values and returns no rows.
    func run() throws { try run(EmptyCollection()) }

    var columnCount: Int32 { sqlite3_column_count(pointer) }

    /// The value of column `index` (0-based) of the current row.
    func value(at index: Int32) -> StoredValue {
        switch sqlite3_column_type(pointer, index) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(pointer, index))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(pointer, index))
        case SQLITE_TEXT:
            guard let text = sqlite3_column_text(pointer, index) else { return .text("") }
            let count = Int(sqlite3_column_bytes(pointer, index))
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(pointer, index))
            guard count > 0, let bytes = sqlite3_column_blob(pointer, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    /// SQLite copies bound text and blobs before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
