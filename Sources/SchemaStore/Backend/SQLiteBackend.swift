import Foundation
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif
import SchemaRuntime

/// The SQLite backend: one database file (or `:memory:`), WAL journal, one table per entity
/// and per stored link slot, and a `schemagen:meta` table recording the store format and the
/// schema fingerprint and layout it was written with.
///
/// The connection holds the file's write lock from open to close (exclusive locking mode),
/// so a second store on the same file fails to open instead of diverging from this one.
final class SQLiteBackend: StoreBackend, @unchecked Sendable {
    /// The store format this code writes; a file with a higher one is refused.
    static let format = 1
    static let metaTable = "\"schemagen:meta\""

    let location: String
    private let database: SQLiteDatabase
    private let durability: Store.Durability

    init(path: String, durability: Store.Durability, lockTimeout: TimeInterval) throws {
        location = path
        self.durability = durability
        do {
            database = try SQLiteDatabase(path: path)
        } catch let error as SQLiteError {
            throw StoreError.cannotOpen(path: path, reason: Self.openFailure(error, path: path))
        }
        sqlite3_busy_timeout(database.handle, Int32(lockTimeout * 1000))
    }

    private static func openFailure(_ error: SQLiteError, path: String) -> String {
        let directory = (path as NSString).deletingLastPathComponent
        if error.code == SQLITE_CANTOPEN, !FileManager.default.isWritableFile(atPath: directory.isEmpty ? "." : directory) {
            return "the folder \(directory) is not writable (\(error))"
        }
        return error.description
    }

    /// Maps a SQLite failure to the store error a user can act on.
    private func storeError(_ error: any Error) -> any Error {
        guard let error = error as? SQLiteError else { return error }
        switch error.code {
        case SQLITE_BUSY, SQLITE_LOCKED:
            return StoreError.locked(path: location)
        case SQLITE_NOTADB, SQLITE_CORRUPT:
            return StoreError.corrupt(path: location, reason: error.description)
        case SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_AUTH:
            return StoreError.cannotOpen(path: location, reason: error.description)
        default:
            return StoreError.database(path: location, reason: error.description)
        }
    }

    private func mapped<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw storeError(error) }
    }

    // MARK: Open

    func open(_ layout: StoreLayout) throws {
        try mapped {
            try database.execute("PRAGMA locking_mode = EXCLUSIVE")
            // Refuse a file that is not this schema's store before anything below changes it
            // (switching to WAL rewrites the file header).
            try checkTables(layout, creating: false)
            let mode = try database.strings("PRAGMA journal_mode = WAL").first ?? ""
            guard mode == "wal" || mode == "memory" else {
                throw StoreError.cannotOpen(path: location, reason: "the file cannot use a write-ahead log (journal mode is \(mode))")
            }
            try database.execute("PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
            // Taking the write lock now makes a second store on the file fail here, at open.
            try database.execute("BEGIN IMMEDIATE")
            do {
                try checkTables(layout, creating: true)
                try database.execute("COMMIT")
            } catch {
                try? database.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// Checks that the file is empty or a store of `layout`'s schema, and with `creating`
    /// creates the tables of an empty one.
    private func checkTables(_ layout: StoreLayout, creating: Bool) throws {
        let tables = try database.strings("SELECT name FROM sqlite_master WHERE type = 'table'")
        guard tables.contains("schemagen:meta") else {
            guard tables.isEmpty else {
                throw StoreError.notAStore(path: location, reason: "it holds tables (\(tables.sorted().prefix(5).joined(separator: ", "))) but no schemagen:meta table")
            }
            if creating { try createTables(layout) }
            return
        }
        var meta: [String: String] = [:]
        let statement = try database.statement("SELECT key, value FROM \(Self.metaTable)")
        while try statement.step() {
            if case .text(let key) = statement.value(at: 0), case .text(let value) = statement.value(at: 1) { meta[key] = value }
        }
        guard let format = meta["format"].flatMap(Int.init) else {
            throw StoreError.notAStore(path: location, reason: "its schemagen:meta table records no format")
        }
        guard format <= Self.format else {
            throw StoreError.newerFormat(path: location, format: format, supported: Self.format)
        }
        guard meta["fingerprint"] == layout.fingerprint else {
            throw StoreError.schemaMismatch(path: location, stored: meta["fingerprint"] ?? "none", expected: layout.fingerprint,
                                            storedLayout: meta["layout"] ?? "", expectedLayout: layout.description)
        }
    }

    private func createTables(_ layout: StoreLayout) throws {
        try database.execute("CREATE TABLE \(Self.metaTable) (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL)")
        for entity in layout.entities {
            let columns = entity.columns.enumerated().map { index, column in
                "\(quoted(column.name)) \(column.type.rawValue)\(column.isNullable ? "" : " NOT NULL")\(index == 0 ? " PRIMARY KEY" : "")"
            }
            try database.execute("CREATE TABLE \(quoted(entity.tableName)) (\(columns.joined(separator: ", ")))")
        }
        for link in layout.links {
            let name = quoted(link.name)
            if link.isToMany {
                try database.execute("""
                    CREATE TABLE \(name) (owner \(link.ownerEntity.idType.rawValue) NOT NULL, position INTEGER NOT NULL, \
                    target \(link.targetEntity.idType.rawValue) NOT NULL, PRIMARY KEY (owner, target)) WITHOUT ROWID
                    """)
                try database.execute("CREATE UNIQUE INDEX \(quoted(link.name + ":order")) ON \(name) (owner, position)")
            } else {
                try database.execute("CREATE TABLE \(name) (owner \(link.ownerEntity.idType.rawValue) NOT NULL PRIMARY KEY, target \(link.targetEntity.idType.rawValue) NOT NULL)")
            }
        }
        let insert = try database.statement("INSERT INTO \(Self.metaTable) (key, value) VALUES (?, ?)")
        for (key, value) in [("format", "\(Self.format)"), ("fingerprint", layout.fingerprint), ("layout", layout.description)] {
            try insert.run([.text(key), .text(value)])
        }
    }

    // MARK: Load

    func loadRows(_ entity: any AnyEntityPersister, _ body: ([StoredValue]) throws -> Void) throws {
        let columns = entity.columns.map { quoted($0.name) }.joined(separator: ", ")
        let statement = try mapped { try database.statement("SELECT \(columns) FROM \(quoted(entity.tableName)) ORDER BY rowid") }
        let count = Int32(entity.columns.count)
        while try mapped({ try statement.step() }) {
            try body((0..<count).map(statement.value(at:)))
        }
    }

    func loadLinks(_ link: LinkLayout, _ body: (StoredValue, [StoredValue]) throws -> Void) throws {
        let order = link.isToMany ? "owner, position" : "owner"
        let statement = try mapped { try database.statement("SELECT owner, target FROM \(quoted(link.name)) ORDER BY \(order)") }
        var owner: StoredValue?
        var targets: [StoredValue] = []
        while try mapped({ try statement.step() }) {
            let next = statement.value(at: 0)
            if next != owner {
                if let owner { try body(owner, targets) }
                owner = next
                targets.removeAll(keepingCapacity: true)
            }
            targets.append(statement.value(at: 1))
        }
        if let owner { try body(owner, targets) }
    }

    // MARK: Write

    func transaction(_ body: (any StoreTransaction) throws -> Void) throws {
        try mapped {
            try database.execute("BEGIN IMMEDIATE")
            do {
                try body(SQLiteTransaction(database: database))
                try database.execute("COMMIT")
            } catch {
                try? database.execute("ROLLBACK")
                throw error
            }
        }
    }

    func close() { database.close() }
}

/// SQL identifiers are always quoted: schema names may be SQL keywords (`order`, `group`).
func quoted(_ identifier: String) -> String {
    "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
