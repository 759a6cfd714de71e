import Foundation
import SchemaEvolution
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// Reads the schema shape a store file records, opening it read-only: `migrate-plan` shows a
/// plan without an app and without changing the file.
enum StoreShapeReader {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func shape(at path: String) throws -> SchemaShape {
        guard FileManager.default.fileExists(atPath: path) else { throw Failure(description: "\(path): no such file") }
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw Failure(description: "\(path): cannot open the file as a database")
        }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        let sql = "SELECT value FROM \"\(StoreMetadataKey.table)\" WHERE key = '\(StoreMetadataKey.shape)'"
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw Failure(description: "\(path): not a SchemaGen store (no \(StoreMetadataKey.table) table)")
        }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else {
            throw Failure(description: "\(path): the store records no schema shape (written before stores recorded one); open it with its app once")
        }
        do {
            return try JSONDecoder().decode(SchemaShape.self, from: Data(String(cString: text).utf8))
        } catch {
            throw Failure(description: "\(path): the recorded schema shape cannot be read (\(error))")
        }
    }
}
