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
/// Several connections, in this process or others, may share the file (WAL: readers never
/// wait, one writer at a time). Each write transaction takes the write lock at its start
/// (`BEGIN IMMEDIATE`) and waits up to the lock timeout for another writer to finish; a store
/// notices other connections' commits through ``externalCommitCounter()`` (`PRAGMA
/// data_version`) and loads their state before it writes.
final class SQLiteBackend: StoreBackend, @unchecked Sendable {
    /// The store format this code writes; a file with a higher one is refused.
    static let format = 1
    static let metaTable = quoted(StoreMetadataKey.table)
    /// The user's edits of pack entities (``OverlayRecord``); created by the first edit, or
    /// by a writer opening the store on demand over packs.
    static let overlayTable = quoted("schemagen:overlay")
    static let overlayTableDefinition = overlayTableDefinition(named: overlayTable)

    /// Creates the table of edit records as `name` (quoted, maybe qualified) if it is missing.
    static func overlayTableDefinition(named name: String, temporary: Bool = false) -> String {
        """
        CREATE \(temporary ? "TEMP " : "")TABLE IF NOT EXISTS \(name) (kind TEXT NOT NULL, name TEXT NOT NULL, id NOT NULL, \
        pack TEXT NOT NULL, PRIMARY KEY (kind, name, id))
        """
    }
    /// Soft-deleted archives (`Deleted<Entity>`), as JSON: created on first use.
    static let archiveTable = quoted("schemagen:archive")
    /// What each commit changed (``CommitLog``): created when a writer opens the file.
    static let commitLogTable = quoted(CommitLog.table)

    static func createCommitLog(in database: SQLiteDatabase) throws {
        try database.statement(cacheKey: "commit table", """
            CREATE TABLE IF NOT EXISTS \(commitLogTable) ("commit" INTEGER NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL, id NOT NULL, change)
            """).run()
        // A log created before entries recorded their change (readers of that version select
        // the other columns by name, so they read it as before).
        if try !hasChangeColumn(in: database) { try database.execute("ALTER TABLE \(commitLogTable) ADD COLUMN change") }
        try database.statement(cacheKey: "commit index", "CREATE INDEX IF NOT EXISTS \(quoted(CommitLog.table + ":commit")) ON \(commitLogTable) (\"commit\")").run()
    }

    /// Whether the commit log records each row's change (see ``CommitLog/Change``).
    static func hasChangeColumn(in database: SQLiteDatabase) throws -> Bool {
        try database.strings("SELECT name FROM pragma_table_info('\(CommitLog.table)')").contains("change")
    }

    let location: String
    let database: SQLiteDatabase
    private let durability: Store.Durability
    private let readOnly: Bool

    /// Whether opening for writing creates the schema's SQL indexes (``SQLIndex``): a store
    /// opened on demand does, and they are kept in step by every writer from then on.
    private let createsSQLIndexes: Bool

    /// The packs this connection shows under the user store, once attached
    /// (``attach(_:)``, SQLiteBackend+PackUnion.swift).
    var attachedPacks: AttachedPacks?
    /// For a snapshot: the last commit it sees (``SnapshotConnection/snapshotCommit``), set
    /// by ``beginSnapshot()`` (SQLiteBackend+Reading.swift).
    var snapshotCommit: Int64?

    /// How long a statement waits for another connection's lock.
    private let lockTimeout: TimeInterval
    /// Whether a write transaction waits for another connection's write to end (up to
    /// ``lockTimeout``) rather than throw ``OtherWriterFirst``; under the store's write lock.
    private var waitsForOtherWriters = true

    init(path: String, durability: Store.Durability, lockTimeout: TimeInterval, readOnly: Bool = false, createsSQLIndexes: Bool = false) throws {
        location = path
        self.lockTimeout = lockTimeout
        self.durability = durability
        self.readOnly = readOnly
        self.createsSQLIndexes = createsSQLIndexes
        do {
            database = try SQLiteDatabase(path: path, readOnly: readOnly, create: !readOnly)
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

    func mapped<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch { throw storeError(error) }
    }

    // MARK: Open

    func open(_ layout: StoreLayout, migrations: [Migration], policy: Store.MigrationPolicy) throws -> MigrationPlan? {
        try mapped {
            if readOnly {
                // Reading only: no lock taken, nothing written; a file needing more than that is refused.
                let (decision, _) = try decide(layout, migrations: migrations, policy: policy)
                if case .migrate = decision { preconditionFailure("a read-only open never migrates") }
                return nil
            }
            // Refuse a file that is not this schema's store, or that cannot be migrated, before
            // anything below changes it (switching to WAL rewrites the file header).
            _ = try decide(layout, migrations: migrations, policy: policy)
            let mode = try database.strings("PRAGMA journal_mode = WAL").first ?? ""
            guard mode == "wal" || mode == "memory" else {
                throw StoreError.cannotOpen(path: location, reason: "the file cannot use a write-ahead log (journal mode is \(mode))")
            }
            try database.execute("PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
            // A writer that keeps SQL indexes and full-text postings touches pages all over the
            // file in a large write: with SQLite's default 2 MB cache it spills them to the log
            // and reads them back mid-transaction. The cache grows only as pages are used.
            if createsSQLIndexes { try database.execute("PRAGMA cache_size = -32768") }
            // Decide again under the write lock: another connection may have created or
            // migrated the file since; exactly one connection migrates it.
            try database.execute("BEGIN IMMEDIATE")
            do {
                var applied: MigrationPlan?
                let (decision, metadata) = try decide(layout, migrations: migrations, policy: policy)
                switch decision {
                case .create:
                    try createTables(layout)
                    try recordMetadata(layout, history: [layout.fingerprint])
                case .current(let recordShape):
                    if recordShape { try recordMetadata(layout, history: metadata?.history ?? [layout.fingerprint]) }
                case .migrate(let plan):
                    let byField = Dictionary(migrations.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
                    try StoreMigrator(database: SQLiteMigrationDatabase(database: database), plan: plan, layout: layout, migrations: byField, path: location).run()
                    // The log names tables and links as they were: followers load the graph again.
                    try database.execute("DROP TABLE IF EXISTS \(Self.commitLogTable)")
                    // Full-text postings describe the old rows: made again below, or gone.
                    for name in try database.strings("SELECT name FROM sqlite_master WHERE type = 'table'") where FullTextLayout.isManaged(name) {
                        try database.execute("DROP TABLE \(quoted(name))")
                    }
                    database.clearStatementCache()
                    try recordMetadata(layout, history: (metadata?.history ?? []) + [layout.fingerprint])
                    applied = plan
                case .readNewer:
                    preconditionFailure("only a read-only open reads a newer store")
                }
                // Created here, once, rather than checked by every commit that logs.
                if location != ":memory:" { try Self.createCommitLog(in: database) }
                // Indexes cost every write: only files read on demand get them (syncIndexes).
                if createsSQLIndexes {
                    try syncIndexes(layout)
                    try syncFullText(layout, rebuild: false)
                }
                try database.execute("COMMIT")
                return applied
            } catch {
                try? database.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// The plan opening the file for writing would apply (nil if none), without writing.
    func plan(for layout: StoreLayout, migrations: [Migration]) throws -> MigrationPlan? {
        try mapped {
            guard let metadata = try readMetadata(), metadata.fingerprint != layout.fingerprint else { return nil }
            return try OpenDecision.plan(from: metadata, to: layout, migrations: migrations, path: location)
        }
    }

    /// What opening does with the file: see ``OpenDecision``. Throws for a file that is not a
    /// store, or one this code must not open.
    private func decide(_ layout: StoreLayout, migrations: [Migration], policy: Store.MigrationPolicy) throws -> (OpenDecision, StoreMetadata?) {
        let metadata = try readMetadata()
        if let metadata, metadata.format > Self.format {
            throw StoreError.newerFormat(path: location, format: metadata.format, supported: Self.format)
        }
        let decision = try OpenDecision.decide(metadata, layout: layout, migrations: migrations, policy: policy, readOnly: readOnly, path: location)
        return (decision, metadata)
    }

    /// The recorded metadata; nil for an empty file. Throws for a file that is not a store.
    private func readMetadata() throws -> StoreMetadata? {
        try StoreMetadata.read(tables: Set(try database.strings("SELECT name FROM sqlite_master WHERE type = 'table'")), values: {
            var values: [String: String] = [:]
            let statement = try database.statement("SELECT key, value FROM \(Self.metaTable)")
            while try statement.step() {
                if case .text(let key) = statement.value(at: 0), case .text(let value) = statement.value(at: 1) { values[key] = value }
            }
            return values
        }, path: location)
    }

    private func recordMetadata(_ layout: StoreLayout, history: [String]) throws {
        let insert = try database.statement("INSERT OR REPLACE INTO \(Self.metaTable) (key, value) VALUES (?, ?)")
        for (key, value) in StoreMetadata.values(for: layout, format: Self.format, history: history) {
            try insert.run([.text(key), .text(value)])
        }
    }

    private func createTables(_ layout: StoreLayout) throws {
        try database.execute("CREATE TABLE \(Self.metaTable) (key TEXT NOT NULL PRIMARY KEY, value TEXT NOT NULL)")
        for entity in layout.entities { try Self.createTable(entity, in: database) }
        for link in layout.links { try Self.createTable(link, in: database) }
    }

    static func createTable(_ entity: any AnyEntityPersister, in database: SQLiteDatabase) throws {
        let columns = entity.columns.enumerated().map { index, column in
            "\(quoted(column.name)) \(column.type.rawValue)\(column.isNullable ? "" : " NOT NULL")\(index == 0 ? " PRIMARY KEY" : "")"
        }
        try database.execute("CREATE TABLE \(quoted(entity.tableName)) (\(columns.joined(separator: ", ")))")
    }

    static func createTable(_ link: LinkLayout, in database: SQLiteDatabase) throws {
        let name = quoted(link.name)
        if link.isToMany {
            try database.execute("""
                CREATE TABLE \(name) (owner \(link.ownerEntity.idType.rawValue) NOT NULL, position INTEGER NOT NULL, \
                target \(link.targetEntity.idType.rawValue) NOT NULL, PRIMARY KEY (owner, target)) WITHOUT ROWID
                """)
            try createOrderIndex(link, in: database)
        } else {
            try database.execute("CREATE TABLE \(name) (owner \(link.ownerEntity.idType.rawValue) NOT NULL PRIMARY KEY, target \(link.targetEntity.idType.rawValue) NOT NULL)")
        }
    }

    static func createOrderIndex(_ link: LinkLayout, in database: SQLiteDatabase) throws {
        try database.execute("CREATE UNIQUE INDEX \(quoted(link.name + ":order")) ON \(quoted(link.name)) (owner, position)")
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

    func loadOverlay(_ body: (OverlayRecord) throws -> Void) throws {
        guard try mapped({ try database.hasTable("schemagen:overlay") }) else { return }
        let statement = try mapped { try database.statement("SELECT kind, name, id, pack FROM \(Self.overlayTable) ORDER BY rowid") }
        while try mapped({ try statement.step() }) {
            guard case .text(let kind) = statement.value(at: 0), let kind = OverlayRecord.Kind(rawValue: kind),
                  case .text(let name) = statement.value(at: 1), case .text(let pack) = statement.value(at: 3),
                  let pack = UUID(uuidString: pack) else {
                throw StoreError.corrupt(path: location, reason: "a record of schemagen:overlay is unreadable")
            }
            try body(OverlayRecord(kind: kind, name: name, id: statement.value(at: 2), pack: pack))
        }
    }

    func loadArchives(_ body: (String, Data) throws -> Void) throws {
        guard try mapped({ try database.hasTable("schemagen:archive") }) else { return }
        let statement = try mapped { try database.statement("SELECT name, archive FROM \(Self.archiveTable) ORDER BY rowid") }
        while try mapped({ try statement.step() }) {
            guard case .text(let name) = statement.value(at: 0), case .blob(let json) = statement.value(at: 1) else {
                throw StoreError.corrupt(path: location, reason: "a record of schemagen:archive is unreadable")
            }
            try body(name, json)
        }
    }

    // MARK: Write

    func transaction(_ body: (any StoreTransaction) throws -> Void) throws {
        try mapped {
            try beginWriting()
            do {
                try body(SQLiteTransaction(database: database))
                try database.execute("COMMIT")
            } catch {
                database.resetActiveStatements()
                try? database.execute("ROLLBACK")
                throw error
            }
        }
    }

    func withoutWaitingForOtherWriters<Result>(_ body: () throws -> Result) rethrows -> Result {
        waitsForOtherWriters = false
        defer { waitsForOtherWriters = true }
        return try body()
    }

    /// Takes the file's write lock (`BEGIN IMMEDIATE`): waiting for another connection's
    /// write up to ``lockTimeout``, or, in ``withoutWaitingForOtherWriters(_:)``, not at all.
    private func beginWriting() throws {
        guard !waitsForOtherWriters else { return try database.execute("BEGIN IMMEDIATE") }
        sqlite3_busy_timeout(database.handle, 0)
        defer { sqlite3_busy_timeout(database.handle, Int32(lockTimeout * 1000)) }
        do {
            try database.execute("BEGIN IMMEDIATE")
        } catch let error as SQLiteError where error.code == SQLITE_BUSY {
            throw OtherWriterFirst()
        }
    }

    func readTransaction<Result>(_ body: () throws -> Result) throws -> Result {
        // Inside a write transaction the reads already see one state: join it.
        guard sqlite3_get_autocommit(database.handle) != 0 else { return try body() }
        try mapped { try database.execute("BEGIN DEFERRED") }
        do {
            let result = try body()
            try mapped { try database.execute("COMMIT") }
            return result
        } catch {
            database.resetActiveStatements()
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    func externalCommitCounter() throws -> Int64? {
        guard location != ":memory:" else { return nil }
        return try mapped {
            let statement = try database.statement("PRAGMA data_version")
            // Reset at once: a statement left on its row would hold its read transaction open,
            // pinning an old snapshot.
            defer { statement.reset() }
            guard try statement.step(), case .integer(let version) = statement.value(at: 0) else {
                throw StoreError.database(path: location, reason: "PRAGMA data_version returned nothing")
            }
            return version
        }
    }

    func lastCommit() throws -> Int64? {
        try mapped {
            guard try hasCommitLog() else { return 0 }
            let statement = try database.statement("SELECT max(\"commit\") FROM \(Self.commitLogTable)")
            defer { statement.reset() }
            guard try statement.step() else { return 0 }
            if case .integer(let number) = statement.value(at: 0) { return number }
            return 0
        }
    }

    func commits(after commit: Int64) throws -> [(commit: Int64, entry: CommitLog.Entry)] {
        try mapped {
            guard try hasCommitLog() else { return [] }
            let change = try Self.hasChangeColumn(in: database) ? "change" : "NULL"
            let statement = try database.statement("SELECT \"commit\", kind, name, id, \(change) FROM \(Self.commitLogTable) WHERE \"commit\" > ? ORDER BY \"commit\", rowid")
            try statement.bind([.integer(commit)])
            var result: [(commit: Int64, entry: CommitLog.Entry)] = []
            while try statement.step() {
                guard case .integer(let number) = statement.value(at: 0), case .text(let kind) = statement.value(at: 1),
                      let kind = CommitLog.Kind(rawValue: kind), case .text(let name) = statement.value(at: 2) else {
                    throw StoreError.corrupt(path: location, reason: "a record of \(CommitLog.table) is unreadable")
                }
                var entry = CommitLog.Entry(kind: kind, name: name, id: statement.value(at: 3))
                let change = statement.value(at: 4)
                if change != .null { entry.change = change }
                result.append((number, entry))
            }
            return result
        }
    }

    private func hasCommitLog() throws -> Bool {
        try database.hasTable(CommitLog.table)
    }

    func row(_ entity: any AnyEntityPersister, id: StoredValue) throws -> [StoredValue]? {
        try mapped {
            let columns = entity.columns.map { quoted($0.name) }.joined(separator: ", ")
            let statement = try database.statement(cacheKey: "row " + entity.tableName,
                                                   "SELECT \(columns) FROM \(quoted(entity.tableName)) WHERE \(quoted(entity.columns[0].name)) = ?")
            try statement.bind([id])
            defer { statement.reset() }
            guard try statement.step() else { return nil }
            return (0..<Int32(entity.columns.count)).map(statement.value(at:))
        }
    }

    func targets(_ link: LinkLayout, owner: StoredValue) throws -> [StoredValue] {
        try mapped {
            let order = link.isToMany ? " ORDER BY position" : ""
            let statement = try database.statement(cacheKey: "targets " + link.name, "SELECT target FROM \(quoted(link.name)) WHERE owner = ?\(order)")
            try statement.bind([owner])
            var targets: [StoredValue] = []
            while try statement.step() { targets.append(statement.value(at: 0)) }
            return targets
        }
    }

    /// A statement per owner: it costs no round trip.
    func lastTargets(_ link: LinkLayout, owners: [(owner: StoredValue, count: Int)]) throws -> [StoredValue: [StoredValue]] {
        try mapped {
            let statement = try database.statement(cacheKey: "last targets " + link.name,
                                                   "SELECT target FROM \(quoted(link.name)) WHERE owner = ? ORDER BY position DESC LIMIT ?")
            var targets: [StoredValue: [StoredValue]] = [:]
            for (owner, count) in owners {
                try statement.bind([owner, .integer(Int64(count))])
                var last: [StoredValue] = []
                while try statement.step() { last.append(statement.value(at: 0)) }
                statement.reset()
                targets[owner] = last.reversed()
            }
            return targets
        }
    }

    /// The ids of the archives of the entity `name`, in storage order.
    func archiveIDs(name: String) throws -> [StoredValue] {
        try mapped {
            guard try database.hasTable("schemagen:archive") else { return [] }
            let statement = try database.statement(cacheKey: "archive ids", "SELECT id FROM \(Self.archiveTable) WHERE name = ? ORDER BY rowid")
            try statement.bind([.text(name)])
            defer { statement.reset() }
            var ids: [StoredValue] = []
            while try statement.step() { ids.append(statement.value(at: 0)) }
            return ids
        }
    }

    func archive(name: String, id: StoredValue) throws -> Data? {
        try mapped {
            guard try database.hasTable("schemagen:archive") else { return nil }
            let statement = try database.statement(cacheKey: "archive read", "SELECT archive FROM \(Self.archiveTable) WHERE name = ? AND id = ?")
            try statement.bind([.text(name), id])
            defer { statement.reset() }
            guard try statement.step() else { return nil }
            guard case .blob(let json) = statement.value(at: 0) else {
                throw StoreError.corrupt(path: location, reason: "a record of schemagen:archive is unreadable")
            }
            return json
        }
    }

    func recordedFingerprint() throws -> String? {
        try mapped { try readMetadata()?.fingerprint }
    }

    /// The recorded fingerprint alone, in one indexed read (nil for a file without metadata):
    /// what a store reading on demand checks before each snapshot and write.
    func currentFingerprint() throws -> String? {
        try mapped {
            guard try database.hasTable(StoreMetadataKey.table) else { return nil }
            let statement = try database.statement(cacheKey: "fingerprint", "SELECT value FROM \(Self.metaTable) WHERE key = ?")
            try statement.bind([.text(StoreMetadataKey.fingerprint)])
            defer { statement.reset() }
            guard try statement.step(), case .text(let fingerprint) = statement.value(at: 0) else { return nil }
            return fingerprint
        }
    }

    func close() { database.close() }
}

/// SQL identifiers are always quoted: schema names may be SQL keywords (`order`, `group`).
/// Called per row by some writes: an identifier without a quote (every one a schema makes)
/// is not searched by Foundation, which is slow at it.
func quoted(_ identifier: String) -> String {
    guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
    return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
}
