import Foundation
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// One SQLite connection with a cache of prepared statements.
///
/// Not thread-safe: its owner (``SQLiteBackend``) only uses it while holding the store's
/// write lock, or before the store is shared.
final class SQLiteDatabase {
    private(set) var handle: OpaquePointer?
    private var statements: [String: SQLiteStatement] = [:]
    /// ``tableNames()`` and ``indexStatements()`` as of a schema version, by `sqlite_master`'s type.
    private var cachedObjects: [String: (version: Int64, objects: [String: String])] = [:]

    /// Opens (or, with `create`, creates) the database at `path`.
    init(path: String, readOnly: Bool = false, create: Bool = true) throws {
        var flags = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE
        if create && !readOnly { flags |= SQLITE_OPEN_CREATE }
        // URI file names let a connection attach a pack's file read-only (`?mode=ro`); a
        // plain path (never starting with `file:` here) means what it always did.
        flags |= SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        guard result == SQLITE_OK else {
            let error = currentError(result)
            sqlite3_close_v2(handle)
            handle = nil
            throw error
        }
        sqlite3_extended_result_codes(handle, 1)
        SQLiteCollation.register(on: handle)
        SQLiteTextFunction.register(on: handle)
    }

    deinit { close() }

    func close() {
        statements.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// The error for `result`, with the connection's message.
    func currentError(_ result: Int32) -> SQLiteError {
        let message = handle.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(result))
        let extended = handle.map { sqlite3_extended_errcode($0) } ?? result
        return SQLiteError(code: result & 0xFF, extendedCode: extended, message: message)
    }

    /// Runs one or more statements without results.
    func execute(_ sql: String) throws {
        let result = sqlite3_exec(handle, sql, nil, nil, nil)
        guard result == SQLITE_OK else { throw currentError(result) }
    }

    /// The prepared statement for `sql`, reset and cached for reuse.
    func statement(_ sql: String) throws -> SQLiteStatement {
        try statement(cacheKey: sql, sql)
    }

    /// The prepared statement cached under `cacheKey`, preparing `sql()` on first use: hot
    /// paths name a statement by a short key instead of building its text on every call.
    func statement(cacheKey: String, _ sql: @autoclosure () -> String) throws -> SQLiteStatement {
        if let cached = statements[cacheKey] {
            cached.reset()
            return cached
        }
        let statement = try prepare(sql())
        statements[cacheKey] = statement
        return statement
    }

    private func prepare(_ sql: String) throws -> SQLiteStatement {
        var pointer: OpaquePointer?
        let result = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &pointer, nil)
        guard result == SQLITE_OK, let pointer else { throw currentError(result) }
        return SQLiteStatement(pointer, database: self)
    }

    /// Rewinds every statement still positioned on a row. A statement left on a row keeps its
    /// read transaction open, which would pin this connection to an old snapshot of a file
    /// other connections write; a loop that threw midway leaves one.
    func resetActiveStatements() {
        var statement = sqlite3_next_stmt(handle, nil)
        while let current = statement {
            if sqlite3_stmt_busy(current) != 0 { sqlite3_reset(current) }
            statement = sqlite3_next_stmt(handle, current)
        }
    }

    /// Forgets every cached statement (after tables were renamed or dropped).
    func clearStatementCache() {
        statements.removeAll()
    }

    /// The names of the database's tables, read again only when its schema changed (by this
    /// connection or another: `PRAGMA schema_version`).
    func tableNames() throws -> Set<String> { Set(try schemaObjects(of: "table").keys) }

    /// The statement that created each index of the database, by name (empty for the ones
    /// SQLite makes itself), read again only when its schema changed.
    func indexStatements() throws -> [String: String] { try schemaObjects(of: "index") }

    /// The schema's objects of `type`, each name with the statement that created it.
    private func schemaObjects(of type: String) throws -> [String: String] {
        let version = try statement(cacheKey: "schema version", "PRAGMA schema_version")
        defer { version.reset() }
        guard try version.step(), case .integer(let number) = version.value(at: 0) else { return [:] }
        if let cached = cachedObjects[type], cached.version == number { return cached.objects }
        let objects = try statement("SELECT name, sql FROM sqlite_master WHERE type = ?")
        defer { objects.reset() }
        try objects.bind([.text(type)])
        var found: [String: String] = [:]
        while try objects.step() {
            guard case .text(let name) = objects.value(at: 0) else { continue }
            if case .text(let sql) = objects.value(at: 1) { found[name] = sql } else { found[name] = "" }
        }
        cachedObjects[type] = (number, found)
        return found
    }

    /// Whether the database has a table named `name`.
    func hasTable(_ name: String) throws -> Bool {
        let statement = try statement("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?")
        try statement.bind([.text(name)])
        defer { statement.reset() }
        return try statement.step()
    }

    /// The rows of a query whose one column is text.
    func strings(_ sql: String) throws -> [String] {
        let statement = try statement(sql)
        var result: [String] = []
        while try statement.step() {
            if case .text(let text) = statement.value(at: 0) { result.append(text) }
        }
        return result
    }
}
