import Foundation
import SchemaRuntime

/// The PostgreSQL backend: the same tables as a file store (one per entity and per stored
/// link slot, `schemagen:meta`, the commit log, archives, overlay records), with PostgreSQL's
/// types, in the connection's current schema.
///
/// Several stores, in one process or on many machines, share a database: writes take one
/// transaction-scoped advisory lock (`pg_advisory_xact_lock`), so they commit one at a time
/// across every process, as writers of a SQLite file do. A resident store's write runs its
/// closure on the graph as of the last commit it heard of and commits only if no other came
/// first (``transaction(expectingLastCommit:_:)``); otherwise it runs again under the lock,
/// after loading what others committed (the commit log). Reads run in `REPEATABLE READ`
/// transactions, so each sees one committed state.
///
/// Other stores' commits reach a store through the commit log, read when its connection
/// hears of a commit (``listenForCommits()``, ``CommitListener``) and once a second in any case.
final class PostgreSQLBackend: StoreBackend, @unchecked Sendable {
    /// The advisory lock every writer of a SchemaGen database takes ("SCHGEN").
    static let writeLock: Int64 = 0x5343_4847_454E
    /// The longest identifier PostgreSQL keeps whole; longer ones are cut, silently.
    static let identifierLimit = 63

    static let metaTable = quoted(StoreMetadataKey.table)
    static let overlayTable = quoted("schemagen:overlay")
    static let archiveTable = quoted("schemagen:archive")
    static let commitLogTable = quoted(CommitLog.table)
    /// A write to the commit log, for sending it with the writes beside it (made once: a
    /// big commit logs a row per change).
    static let commitLogWrite = StatementFusion.modifying(commitLogTable)
    /// Each entity table's storage order (SQLite's `rowid`): rows load in the order first stored.
    static let orderColumn = quoted(PostgreSQLDialect.storageOrder)
    /// The one sequence numbering every table's storage order: a table moved aside by a
    /// migration keeps no sequence named after it.
    static let orderSequence = quoted("schemagen:order")
    static let orderColumnDefinition = "\(orderColumn) bigint NOT NULL DEFAULT nextval('\(orderSequence)')"

    let location: String
    private let server: ServerLocation
    /// The connection, replaced by a new one when it is found gone (``liveConnection()``).
    private var connection: any ServerConnection
    /// What each connection runs while it waits for answers (``runWhileWaiting(_:)``).
    private var whileWaiting: (@Sendable () -> Void)?
    private let readOnly: Bool
    /// A write's full-text changes, by index (its terms table), until its totals are added.
    var fullTextChanges: [String: FullTextChanges] = [:]
    /// The full-text indexes (terms tables) this connection found postings tables for.
    var fullTextTablesSeen: Set<String> = []
    /// Whether a transaction is open on the connection (reads inside it join it), a write's
    /// or a snapshot's.
    private var inTransaction = false
    /// In a snapshot, the fingerprint its first query read (nil outside one).
    private(set) var snapshotFingerprint: String??
    /// In a snapshot, the last commit it holds (0 for none; nil outside one, and in one
    /// begun with its first read until that read was answered).
    private(set) var snapshotCommit: Int64?
    /// In a snapshot begun with its first read (``beginSnapshotWithFirstRead()``), until that
    /// read was answered: the place among the next batch's answers of the answer holding
    /// the snapshot's fingerprint and last commit.
    private var snapshotStep: Int?
    /// How many times this backend waited for the server's answers to reads and to what
    /// went with them (``SnapshotConnection/roundTrips``).
    private(set) var roundTrips = 0
    /// Whether a snapshot is open: its state read, or waiting to be with its first read.
    private var inSnapshot: Bool { snapshotCommit != nil || snapshotStep != nil }
    /// Whether the snapshot's connection was lost and the state it read cannot be read again:
    /// its reads fail until it ends.
    private var snapshotLost = false
    static let fingerprintQuery = "SELECT value FROM \(metaTable) WHERE key = $1"
    /// In a write transaction, the fingerprint ``expectFingerprint(_:)`` checks, and the
    /// place of the check's answer among the next batch's answers until it is sent.
    private var fingerprintCheck: (expected: String?, step: Int?)?
    /// A write transaction's statements not sent yet: they go in batches (``flush()``),
    /// before any statement that reads and before the commit.
    private var pending = PendingWrites()
    /// Whether the connection listens for commit notifications (``listenForCommits()``),
    /// and every connection replacing it does.
    private var listensForCommits = false
    /// Pending writes being sent from another thread (``sendPending()``); every other use of
    /// the connection waits for their answers first (``finishSending()``).
    private var sending: SentBatch?
    /// How many statements went ahead of the batch being spelled (``sendAhead()``): its
    /// answers begin with theirs.
    private var sentAhead = 0
    /// Whether the write transaction's statements are planned generically now (``planOnce()``).
    private var plannedOnce = false
    /// The last commit this connection knows of: read under the write lock, made by its own
    /// writes, or heard of. A write numbered on the server guesses its number from it, to
    /// prune the log every ``pruneEvery`` commits.
    private(set) var lastKnownCommit: Int64?
    /// Whether the write transaction's commit is numbered by the server as it runs
    /// (``transactionNumberedOnServer(_:)``).
    private(set) var numbersOnServer = false
    /// In such a transaction, the place among the batch's answers of the statement that
    /// numbers it, until that answer is read; then the number it gave.
    private var numberingStep: Int?
    private var serverNumber: Int64?
    /// Whether such a transaction logged a commit under that number (a write that changed
    /// nothing logs none).
    fileprivate var loggedServerNumber = false
    /// In a write transaction, the number its commit takes (``nextCommit()``).
    private var numberedCommit: Int64?
    /// Whether the write transaction assumed reads absent (``expectNoRows(_:)``): a division
    /// by zero that no other check explains is one of them found rows.
    private var assumedAbsent = false
    /// In a write reading before the lock (``transactionValidatingReads(_:_:)``), what it
    /// read and the checks its reads asked for.
    private var validation: ReadValidation?
    /// Whether the commit log has the columns of sets of entries (``logHasSets()``).
    var logHasSetColumns = false
    /// Each table's upsert (``upsert(_:)``).
    private var upserts: [String: Upsert] = [:]
    /// Each link table's insert (``linkInsert(_:)``).
    private var linkInserts: [String: RowInsert] = [:]
    /// Each to-many link table's append (``listAppend(_:)``).
    private var listAppends: [String: ListAppend] = [:]
    /// Each full-text index's statements (``fullTextStatements(_:idType:)``), by terms table.
    var fullTextStatementsMade: [String: FullTextStatements] = [:]

    /// With a write that commits, the log after this commit is read in the next read
    /// transaction, which the write begins (``readLogWithCommits(after:)``).
    private var logReadWithCommits: Int64?
    /// After such a write, the log it read: `after` the commit asked, its entries. Until the
    /// next ``readTransaction(_:)`` (which joins the transaction it read in, left open) or
    /// any other use of the connection (which ends it first).
    private var logReadAhead: (after: Int64, entries: [(commit: Int64, entry: CommitLog.Entry)])?

    /// Whether writes commit without waiting for the flush, under the write lock, and wait
    /// for it after (``Store/CommitVisibility/beforeFlush``).
    private let commitsBeforeFlush: Bool
    /// The statement taking the write lock, and the one that also sets generic plans
    /// (``planOnce()``); with ``commitsBeforeFlush``, each also makes the commit return
    /// before its flush.
    private let lockStatement: String
    private let lockPlanningStatement: String

    init(_ server: ServerLocation, readOnly: Bool, lockTimeout: TimeInterval, commitsBeforeFlush: Bool = false) throws {
        self.commitsBeforeFlush = commitsBeforeFlush && !readOnly
        let withoutFlush = self.commitsBeforeFlush ? ", \(Self.commitWithoutFlush)" : ""
        lockStatement = "SELECT pg_advisory_xact_lock($1)" + withoutFlush
        lockPlanningStatement = Self.lockPlanningGenerically + withoutFlush
        location = server.description
        self.server = server
        connection = try Self.connect(server, readOnly: readOnly, lockTimeout: lockTimeout)
        self.readOnly = readOnly
        self.lockTimeout = lockTimeout
    }

    /// A new connection. A writer's waits for a lock (the write lock, the tables a migration
    /// changes) end after the store's lock timeout: set once per connection, not in each
    /// write (a statement fewer per write). A read-only store's reads wait as long as a
    /// migration takes.
    private static func connect(_ server: ServerLocation, readOnly: Bool, lockTimeout: TimeInterval) throws -> any ServerConnection {
        let connection = try server.connect()
        if !readOnly {
            // A number, not a value from outside: SET takes no parameters.
            try connection.execute("SET lock_timeout = \(max(Int(lockTimeout * 1000), 1))", [])
        }
        return connection
    }

    /// How long a write waits for the write lock before it fails with ``StoreError/locked(path:)``.
    private let lockTimeout: TimeInterval
    /// How many commits apart writes prune the commit log (``StoreTransaction/appendCommit(_:)``).
    static let pruneEvery: Int64 = 16
    /// PostgreSQL's code for a lock not granted within `lock_timeout`.
    private static let lockNotAvailable = "55P03"

    @discardableResult
    func execute(_ sql: String, _ parameters: [StoredValue] = []) throws -> [[StoredValue]] {
        try execute(each: [(sql, parameters)])[0]
    }

    /// Runs `statements` in one round trip, after the pending writes; returns each one's rows.
    func execute(each statements: [(sql: String, parameters: [StoredValue])]) throws -> [[[StoredValue]]] {
        if snapshotLost {
            throw StoreError.database(path: location, reason: "the connection to the server was lost during a read, and commits were made since")
        }
        if plannedOnce {
            // A read inside a write (its catch-up, or a query of an on-demand write's
            // closure) is planned for its values, as outside one.
            for statement in Self.planForValues { pending.append(statement, []) }
            plannedOnce = false
        }
        // Indexes that wait for the write's end (IndexDeferral) are made first: these
        // statements may use them (an upsert's conflict clause needs its key).
        if pending.hasDeferredIndexes { pending.restoreDeferredIndexes() }
        roundTrips += 1
        if !pending.isEmpty || sentAhead > 0 {
            // The pending writes and these statements in one round trip.
            let steps = pending.steps() + statements.map { ServerBatchStep.statement(sql: $0.sql, parameters: $0.parameters) }
            return Array(try sendPendingNow(steps).suffix(statements.count))
        }
        let connection = try liveConnection()
        do {
            return try Self.run(statements, on: connection)
        } catch where !connection.isConnected && !inTransaction {
            // Between transactions nothing is lost with the connection: run them on a new one.
            return try Self.run(statements, on: liveConnection())
        }
    }

    /// One statement alone (no pipeline to enter and leave), several in one pipeline.
    private static func run(_ statements: [(sql: String, parameters: [StoredValue])], on connection: any ServerConnection) throws -> [[[StoredValue]]] {
        if statements.count == 1 { return [try connection.execute(statements[0].sql, statements[0].parameters)] }
        return try connection.executeEach(statements)
    }

    /// The connection, or a new one when the server dropped it (a restart, a network
    /// failure). A transaction open on the old one is gone with it: the server rolled it
    /// back, and the write that ran it has thrown.
    private func liveConnection() throws -> any ServerConnection {
        try finishSending()
        if logReadAhead != nil, !inTransaction { endLogReadAhead() }
        if connection.isConnected { return connection }
        // Never the rest of a transaction on a new connection: it would run outside it.
        if inTransaction {
            throw StoreError.database(path: location, reason: "the connection to the server was lost during a transaction, which the server rolled back")
        }
        connection.close()
        pending.removeAll()
        let fresh = try Self.connect(server, readOnly: readOnly, lockTimeout: lockTimeout)
        // The server may have lost commits since the last connection, which stores read:
        // checked before this connection writes (``markNumberingIntact(newDatabase:)``).
        if !readOnly {
            do {
                try Self.checkNumberingIntact(on: fresh)
            } catch {
                let code = fresh.serverCode(of: error)
                fresh.close()
                if code == Self.lockNotAvailable { throw StoreError.locked(path: location) }
                throw error
            }
        }
        // Commits made while no connection listened are found by what reconnects: a write
        // or a check, each of which catches up first.
        if listensForCommits { try fresh.listen(CommitListener.channel) }
        fresh.whileWaiting = whileWaiting
        connection = fresh
        return connection
    }

    /// The parts of an entity's upsert, made once per table (a write of many rows would
    /// otherwise build them again for each).
    struct Upsert {
        let columns: [String]
        /// The insert of a new row (``StoreTransaction/upsertRow(_:_:isNew:)``); with
        /// ``tail``, of any row.
        let insert: RowInsert
        /// `ON CONFLICT ...`, after the rows.
        let tail: String
    }

    func upsert(_ entity: any AnyEntityPersister) -> Upsert {
        if let made = upserts[entity.tableName], made.columns.elementsEqual(entity.columns.lazy.map(\.name)) { return made }
        let names = entity.columns.map { quoted($0.name) }
        let updates = names.dropFirst().map { "\($0) = EXCLUDED.\($0)" }
        // An upsert keeps the row's storage order, as SQLite's keeps its rowid.
        let conflict = updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET \(updates.joined(separator: ", "))"
        let insert = RowInsert(table: entity.tableName, columns: entity.columns.map(\.name), types: entity.columns.map { Self.columnType($0.type) })
        let made = Upsert(columns: entity.columns.map(\.name), insert: insert, tail: " ON CONFLICT (\(names[0])) \(conflict)")
        upserts[entity.tableName] = made
        return made
    }

    /// The insert of a link table's rows (a to-many one's with their positions), made once
    /// per table.
    func linkInsert(_ link: LinkLayout) -> RowInsert {
        let owner = Self.columnType(link.ownerEntity.idType), target = Self.columnType(link.targetEntity.idType)
        let types = link.isToMany ? [owner, "bigint", target] : [owner, target]
        if let made = linkInserts[link.name], made.types == types { return made }
        let made = RowInsert(table: link.name, columns: link.isToMany ? ["owner", "position", "target"] : ["owner", "target"], types: types)
        linkInserts[link.name] = made
        return made
    }

    /// The append to a to-many link table's lists (``ListAppend``), made once per table.
    func listAppend(_ link: LinkLayout) -> ListAppend {
        let owner = Self.columnType(link.ownerEntity.idType), target = Self.columnType(link.targetEntity.idType)
        if let made = listAppends[link.name], made.types[0] == owner, made.types[2] == target { return made }
        let made = ListAppend(table: link.name, owner: owner, target: target)
        listAppends[link.name] = made
        return made
    }

    /// Sends the pending writes and waits for their answers.
    @discardableResult
    private func flush(thenIgnoringFailure trailing: (sql: String, parameters: [StoredValue])? = nil,
                       thenReading following: [(sql: String, parameters: [StoredValue])] = []) throws -> [[[StoredValue]]]? {
        guard !pending.isEmpty || sentAhead > 0 else { return nil }
        return try sendPendingNow(pending.steps(), thenIgnoringFailure: trailing, thenReading: following).following
    }

    /// Sends `steps` (the pending statements, then any others) and waits for their answers;
    /// reads the answer of a pending fingerprint check among them. `trailing` goes behind
    /// them without being waited for, its answer and failure dropped; `following` behind
    /// it, in the same round trip, their answers returned (nil when not read:
    /// ``ServerConnection/executeEach(_:thenIgnoringFailure:thenReading:)``).
    @discardableResult
    private func sendPendingNow(_ steps: [ServerBatchStep],
                                thenIgnoringFailure trailing: (sql: String, parameters: [StoredValue])? = nil) throws -> [[[StoredValue]]] {
        try sendPendingNow(steps, thenIgnoringFailure: trailing, thenReading: []).answers
    }

    private func sendPendingNow(_ steps: [ServerBatchStep], thenIgnoringFailure trailing: (sql: String, parameters: [StoredValue])?,
                                thenReading following: [(sql: String, parameters: [StoredValue])]) throws
        -> (answers: [[[StoredValue]]], following: [[[StoredValue]]]?) {
        let connection = try liveConnection()
        let check = fingerprintCheck?.step
        fingerprintCheck?.step = nil
        pending.removeAll()
        sentAhead = 0
        let (answers, followingAnswers) = try connection.sendEach(steps, thenIgnoringFailure: trailing, thenReading: following)
        // The check read the last commit too: the write numbers its own without reading it.
        if let check, let row = answers[check].first, row.count == 2, case .integer(let last) = row[1] {
            lastCommitRead = last
            lastKnownCommit = last
        }
        // The state of a snapshot begun with this batch's first read.
        if let step = snapshotStep {
            snapshotStep = nil
            readSnapshotState(answers[step].first ?? [])
        }
        // The number the server gave the commit (the statement's last column).
        if let step = numberingStep {
            numberingStep = nil
            if case .text(let text)? = answers[step].first?.last, let number = Int64(text) { serverNumber = number }
        }
        return (answers, followingAnswers)
    }

    /// Starts sending the pending writes from another thread (``SentBatch``), after the
    /// batch before them was answered; this thread goes on building the next ones. A failure
    /// is thrown by the next use of the connection: the write fails there, as it would have
    /// here, and rolls back.
    private func sendPending() throws {
        guard !pending.isEmpty else { return }
        // A fingerprint check still pending is answered here, before more goes.
        if fingerprintCheck?.step != nil || numberingStep != nil {
            _ = try flush()
            return
        }
        let connection = try liveConnection()
        sending = SentBatch(pending.steps(), on: connection)
        pending.removeAll()
    }

    /// Waits for the writes being sent (``sendPending()``); throws their failure.
    private func finishSending() throws {
        guard let batch = sending else { return }
        sending = nil
        try batch.finish()
    }

    /// The single integer `sql` returns (0 for NULL or no row).
    private func integer(_ sql: String, _ parameters: [StoredValue] = []) throws -> Int64 {
        guard case .integer(let value)? = try execute(sql, parameters).first?.first else { return 0 }
        return value
    }

    // MARK: Open

    func open(_ layout: StoreLayout, migrations: [Migration], policy: Store.MigrationPolicy) throws -> MigrationPlan? {
        try checkNames(layout)
        if readOnly {
            let decision = try decide(layout, migrations: migrations, policy: policy)
            if case .migrate = decision { preconditionFailure("a read-only open never migrates") }
            return nil
        }
        if commitsBeforeFlush {
            // Once alone, before anything is written: a role that may not run it is told
            // so here, rather than by a write that committed and then failed to wait.
            do {
                try execute(Self.waitForFlush)
            } catch where connection.serverCode(of: error) != nil {
                throw StoreError.cannotOpen(path: location, reason: """
                    commitVisibility .beforeFlush waits for each commit's flush with pg_logical_emit_message, which failed (\(error)): \
                    grant this role EXECUTE on it, or open with .afterFlush
                    """)
            }
        }
        // Decided under the write lock: exactly one process creates or migrates the tables;
        // the others wait for it, then find them current.
        var applied: MigrationPlan?
        var created = false
        try transaction { _ in
            let decision = try decide(layout, migrations: migrations, policy: policy)
            if case .create = decision { created = true }
            switch decision {
            case .create:
                try createTables(layout)
                try recordMetadata(layout, history: [layout.fingerprint])
            case .current(let recordShape):
                if recordShape { try recordMetadata(layout, history: try readMetadata()?.history ?? [layout.fingerprint]) }
            case .migrate(let plan):
                let history = try readMetadata()?.history ?? []
                let byField = Dictionary(migrations.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
                try StoreMigrator(database: PostgreSQLMigrationDatabase(backend: self), plan: plan, layout: layout,
                                  migrations: byField, path: location).run()
                // The log names tables and links as they were: it is emptied, but its numbering
                // goes on, with one entry naming no entity. A store still open with the old
                // schema sees the number change, checks the recorded schema and stops writing.
                let last = try lastCommit() ?? 0
                try execute("DELETE FROM \(Self.commitLogTable)")
                try execute("INSERT INTO \(Self.commitLogTable) (\"commit\", kind, name, id) VALUES ($1, $2, '', $3)",
                            [.integer(last + 1), .text(CommitLog.Kind.row.rawValue), .text(ServerValueText.encode(.integer(0)))])
                try recordMetadata(layout, history: history + [layout.fingerprint])
                applied = plan
            case .readNewer:
                preconditionFailure("only a read-only open reads a newer store")
            }
            try addLogSetColumns()
            try markNumberingIntact(newDatabase: created)
            try syncIndexes(layout)
            try syncUniqueConstraints(layout)
            // Postings describe rows as they were before a migration: made again then.
            try syncFullText(layout, rebuild: applied != nil)
            // Each write forgets only the commits that just fell out of the log (below);
            // any older ones left behind (a version that kept more) go here.
            try execute("DELETE FROM \(Self.commitLogTable) WHERE \"commit\" <= (SELECT max(\"commit\") FROM \(Self.commitLogTable)) - $1",
                        [.integer(CommitLog.retainedCommits)])
        }
        return applied
    }

    /// Throws for a table or index name PostgreSQL would cut (and so could confuse with another).
    private func checkNames(_ layout: StoreLayout) throws {
        let names = layout.entities.map { $0.tableName + ":key" } + layout.links.flatMap { [$0.name + ":key", $0.name + ":order"] }
        if let long = names.first(where: { $0.utf8.count > Self.identifierLimit }) {
            throw StoreError.cannotOpen(path: location, reason: "PostgreSQL keeps names of at most \(Self.identifierLimit) bytes, and the table '\(long)' has a longer one: shorten the entity or relation name")
        }
        if let long = (Array(SQLIndex.wanted(by: layout, in: PostgreSQLDialect()).keys) + Self.wantedUniqueConstraints(layout).keys).sorted().first(where: { $0.utf8.count > Self.identifierLimit }) {
            throw StoreError.cannotOpen(path: location, reason: "PostgreSQL keeps names of at most \(Self.identifierLimit) bytes, and the index '\(long)' has a longer one: shorten the entity, relation or index name")
        }
    }

    private func decide(_ layout: StoreLayout, migrations: [Migration], policy: Store.MigrationPolicy) throws -> OpenDecision {
        let metadata = try readMetadata()
        if let metadata, metadata.format > SQLiteBackend.format {
            throw StoreError.newerFormat(path: location, format: metadata.format, supported: SQLiteBackend.format)
        }
        return try OpenDecision.decide(metadata, layout: layout, migrations: migrations, policy: policy, readOnly: readOnly, path: location)
    }

    /// The tables of the connection's current schema.
    private func tableNames() throws -> Set<String> {
        Set(try execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()").compactMap { row in
            if case .text(let name)? = row.first { return name }
            return nil
        })
    }

    /// The recorded metadata; nil for an empty database. Throws for a database holding
    /// other tables: it is not a store, and nothing is written to it.
    private func readMetadata() throws -> StoreMetadata? {
        try StoreMetadata.read(tables: try tableNames(), values: {
            var values: [String: String] = [:]
            for row in try execute("SELECT key, value FROM \(Self.metaTable)") {
                if case .text(let key) = row[0], case .text(let value) = row[1] { values[key] = value }
            }
            return values
        }, path: location)
    }

    private func recordMetadata(_ layout: StoreLayout, history: [String]) throws {
        for (key, value) in StoreMetadata.values(for: layout, format: SQLiteBackend.format, history: history) {
            try execute("INSERT INTO \(Self.metaTable) (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                        [.text(key), .text(value)])
        }
    }

    static func columnType(_ type: StoredType) -> String {
        switch type {
        case .integer: "bigint"
        case .real: "double precision"
        case .text: "text"
        case .blob: "bytea"
        }
    }

    private func createTables(_ layout: StoreLayout) throws {
        try execute("CREATE TABLE \(Self.metaTable) (key text PRIMARY KEY, value text NOT NULL)")
        try execute("CREATE SEQUENCE \(Self.orderSequence)")
        for entity in layout.entities { try createTable(entity) }
        for link in layout.links { try createTable(link) }
        // Values of several types (ids of any entity) are kept as ServerValueText.
        try execute("""
            CREATE TABLE \(Self.commitLogTable) (sequence bigserial PRIMARY KEY, "commit" bigint NOT NULL, kind text NOT NULL, \
            name text NOT NULL, id text, change text, ids text[], changes text[])
            """)
        try execute("CREATE INDEX \(quoted(CommitLog.table + ":commit")) ON \(Self.commitLogTable) (\"commit\")")
        try execute("""
            CREATE TABLE \(Self.archiveTable) (name text NOT NULL, id text NOT NULL, archive bytea NOT NULL, \
            \(Self.orderColumnDefinition), PRIMARY KEY (name, id))
            """)
        try execute("""
            CREATE TABLE \(Self.overlayTable) (kind text NOT NULL, name text NOT NULL, id text NOT NULL, pack text NOT NULL, \
            \(Self.orderColumnDefinition), PRIMARY KEY (kind, name, id))
            """)
    }

    /// An entity's table: its columns, the id the key (a constraint named after the table,
    /// renamed with it), the storage order.
    func createTable(_ entity: any AnyEntityPersister) throws {
        let columns = entity.columns.map { column in
            "\(quoted(column.name)) \(Self.columnType(column.type))\(column.isNullable ? "" : " NOT NULL")"
        }
        try execute("""
            CREATE TABLE \(quoted(entity.tableName)) (\(columns.joined(separator: ", ")), \(Self.orderColumnDefinition), \
            CONSTRAINT \(quoted(entity.tableName + ":key")) PRIMARY KEY (\(quoted(entity.columns[0].name))))
            """)
    }

    func createTable(_ link: LinkLayout) throws {
        let owner = Self.columnType(link.ownerEntity.idType), target = Self.columnType(link.targetEntity.idType)
        let key = quoted(link.name + ":key")
        if link.isToMany {
            try execute("""
                CREATE TABLE \(quoted(link.name)) (owner \(owner) NOT NULL, position bigint NOT NULL, target \(target) NOT NULL, \
                CONSTRAINT \(key) PRIMARY KEY (owner, target))
                """)
            try createOrderIndex(link)
        } else {
            try execute("CREATE TABLE \(quoted(link.name)) (owner \(owner) NOT NULL, target \(target) NOT NULL, CONSTRAINT \(key) PRIMARY KEY (owner))")
        }
    }

    func createOrderIndex(_ link: LinkLayout) throws {
        try execute("CREATE UNIQUE INDEX \(quoted(link.name + ":order")) ON \(quoted(link.name)) (owner, position)")
    }

    /// Renames a table and its key constraint (and so the key's index).
    func renameTable(_ name: String, to newName: String) throws {
        try execute("ALTER TABLE \(quoted(name)) RENAME TO \(quoted(newName))")
        try execute("ALTER TABLE \(quoted(newName)) RENAME CONSTRAINT \(quoted(name + ":key")) TO \(quoted(newName + ":key"))")
    }

    func hasTable(_ name: String) throws -> Bool {
        try tableNames().contains(name)
    }

    // MARK: Load

    func loadRows(_ entity: any AnyEntityPersister, _ body: ([StoredValue]) throws -> Void) throws {
        let columns = entity.columns.map { quoted($0.name) }.joined(separator: ", ")
        for row in try execute("SELECT \(columns) FROM \(quoted(entity.tableName)) ORDER BY \(Self.orderColumn)") {
            try body(Self.typed(row, entity.columns.map(\.type)))
        }
    }

    func loadLinks(_ link: LinkLayout, _ body: (StoredValue, [StoredValue]) throws -> Void) throws {
        let order = link.isToMany ? "owner, position" : "owner"
        var owner: StoredValue?
        var targets: [StoredValue] = []
        for row in try execute("SELECT owner, target FROM \(quoted(link.name)) ORDER BY \(order)") {
            if row[0] != owner {
                if let owner { try body(owner, targets) }
                owner = row[0]
                targets.removeAll(keepingCapacity: true)
            }
            targets.append(row[1])
        }
        if let owner { try body(owner, targets) }
    }

    func loadOverlay(_ body: (OverlayRecord) throws -> Void) throws {
        for row in try execute("SELECT kind, name, id, pack FROM \(Self.overlayTable) ORDER BY \(Self.orderColumn)") {
            guard case .text(let kind) = row[0], let kind = OverlayRecord.Kind(rawValue: kind), case .text(let name) = row[1],
                  let id = Self.decoded(row[2]), case .text(let pack) = row[3], let pack = UUID(uuidString: pack) else {
                throw StoreError.corrupt(path: location, reason: "a record of schemagen:overlay is unreadable")
            }
            try body(OverlayRecord(kind: kind, name: name, id: id, pack: pack))
        }
    }

    func loadArchives(_ body: (String, Data) throws -> Void) throws {
        for row in try execute("SELECT name, archive FROM \(Self.archiveTable) ORDER BY \(Self.orderColumn)") {
            guard case .text(let name) = row[0], case .blob(let json) = row[1] else {
                throw StoreError.corrupt(path: location, reason: "a record of schemagen:archive is unreadable")
            }
            try body(name, json)
        }
    }

    // MARK: Transactions

    func transaction(_ body: (any StoreTransaction) throws -> Void) throws {
        // Sent with the transaction's first read (the store's catch-up), in one round trip.
        try writeTransaction(expecting: nil, body)
    }

    /// A write in one round trip: `BEGIN`, the lock, a check that the last commit is still
    /// `commit`, the writes, the log, `NOTIFY` and `COMMIT` go together. The check divides by
    /// zero when another commit came first (plain SQL has no other way to fail on purpose),
    /// which aborts the transaction; a division by zero is then told from any other failure
    /// by reading the last commit.
    func transaction(expectingLastCommit commit: Int64, _ body: (any StoreTransaction) throws -> Void) throws -> Void? {
        try writeTransaction(expecting: commit, body)
    }

    /// A write numbered as it runs: under the lock, a statement sets the transaction's
    /// `schemagen.commit` to the last commit's number plus one, and the log's entries and
    /// the notification read it (``serverCommitNumber``). Commits stay numbered in order
    /// without gaps: no other writer numbers one until this one ends.
    func transactionNumberedOnServer(_ body: (any StoreTransaction) throws -> Void) throws -> Void? {
        try writeTransaction(expecting: nil, numberedOnServer: true, body)
    }

    /// A write whose reads go before the lock (``StoreBackend/transactionValidatingReads(_:_:)``):
    /// `BEGIN` goes with its first read, which also reads the last commit; the lock waits
    /// for its first write statement, and goes with a statement that checks that the log
    /// names none of `reads()` after that commit (``ReadValidation``), then numbers the
    /// commit as ``transactionNumberedOnServer(_:)`` does. So the lock is held while the
    /// server runs the write's statements, never while this store reads or runs its closure.
    func transactionValidatingReads(_ reads: @escaping () -> WriteReadSet, _ body: (any StoreTransaction) throws -> Void) throws -> Void? {
        try writeTransaction(expecting: nil, numberedOnServer: true, validating: reads, body)
    }

    /// The commit the write transaction under way appended to the log, which the listening
    /// stores hear of once it is made (``commitNotification(_:)``).
    var commitToNotify: NotifiedCommit?

    /// A commit the listening stores are told of, by its number.
    enum NotifiedCommit {
        /// Numbered by this store.
        case numbered(Int64)
        /// Numbered by the server, which keeps the number in ``notifiedSetting``.
        case numberedOnServer
    }

    /// The setting that keeps the number of a commit the server numbered past its
    /// transaction's end, for its notification (set for the session: a transaction's own
    /// setting ends with it; undone with a transaction that fails).
    static let notifiedSetting = "schemagen.notified"

    /// Tells every listening store (``CommitListener``) that commits up to `commit` were
    /// made. Sent behind a write's
    /// `COMMIT`, in a transaction of its own that does not wait for its flush, which the
    /// server runs once it answered the write (a lost notification costs nothing but a
    /// later check: the log, not the notification, says what was committed). Its failure
    /// (a notification queue that a stuck listener filled) does not fail the write, which
    /// committed; behind a write that failed, it fails in the aborted transaction, or names
    /// a commit the listeners do not find, and they read nothing.
    static func commitNotification(_ commit: NotifiedCommit) -> (sql: String, parameters: [StoredValue]) {
        switch commit {
        case .numbered(let number): (notifyingNumber, [.text(CommitListener.channel), .text("\(number)")])
        case .numberedOnServer: (notifyingServerNumber, [.text(CommitListener.channel)])
        }
    }

    /// ``commitNotification(_:)``'s texts, spelled once rather than at every write.
    private static let notifyingHead = "SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, "
    private static let notifyingNumber = notifyingHead + "$2)"
    private static let notifyingServerNumber = notifyingHead + "current_setting('\(notifiedSetting)'))"

    /// The setting holding the number of the commit a transaction numbered on the server makes.
    static let commitSetting = "schemagen.commit"
    /// That number, in SQL.
    static let serverCommitNumber = "current_setting('\(commitSetting)')::bigint"
    /// The statement that numbers such a commit; it answers the number.
    private static let numberCommit = "SELECT set_config('\(commitSetting)', (\(lastCommitQuery) + 1)::text, true)"

    /// A write transaction, its statements waiting to go with its first read or its commit;
    /// with `expected`, refused (``StaleWrite``) unless the last commit is still that one.
    private func writeTransaction(expecting expected: Int64?, numberedOnServer: Bool = false, validating reads: (() -> WriteReadSet)? = nil,
                                  _ body: (any StoreTransaction) throws -> Void) throws {
        // A connection lost since the last transaction is replaced before this one starts.
        _ = try liveConnection()
        pending.resetIndexDeferral()
        pending.append("BEGIN ISOLATION LEVEL READ COMMITTED", [])
        // Waiting for the lock ends after the store's lock timeout (set on the connection).
        // One writer at a time across every process; reads after this see every commit
        // made before it (READ COMMITTED takes a new snapshot per statement).
        // A write that reads nothing before its statements (its closure runs in memory, or
        // takes what it loads for new) sets its plans with the lock: one statement fewer.
        if let reads {
            // The lock comes with the write's statements (``lockValidatingReads()``).
            validation = ReadValidation(reads: reads)
        } else if expected != nil || numberedOnServer {
            pending.append(lockPlanningStatement, [.integer(Self.writeLock)])
            plannedOnce = true
        } else {
            pending.append(lockStatement, [.integer(Self.writeLock)])
        }
        if let expected {
            pending.append("SELECT 1 / (CASE WHEN \(Self.lastCommitQuery) = $1 THEN 1 ELSE 0 END)", [.integer(expected)])
        }
        if numberedOnServer {
            if reads == nil { numberingStep = pending.appendRead(Self.numberCommit, []) }
            numbersOnServer = true
        }
        inTransaction = true
        lastCommitRead = expected
        defer {
            inTransaction = false
            sentAhead = 0
            plannedOnce = false
            lastCommitRead = nil
            numberedCommit = nil
            numberingStep = nil
            serverNumber = nil
            loggedServerNumber = false
            numbersOnServer = false
            assumedAbsent = false
            commitToNotify = nil
            fingerprintCheck = nil
            validation = nil
            fullTextChanges.removeAll()
            pending.resetIndexDeferral()
        }
        do {
            do {
                try body(PostgreSQLTransaction(backend: self))
            } catch {
                // What the write read before the lock may have changed since, and be why it
                // threw: it runs again then, and the error counts only if they held.
                if validation?.lockQueued == false, readsHeld() == false { throw ReadsChanged() }
                throw error
            }
            // A write that read and changed nothing still checks its reads: its closure's
            // answer must come from one state.
            lockValidatingReads()
            pending.append("COMMIT", [])
            // Made without waiting for the flush, and the write lock released: the write
            // waits for it now, in a transaction of its own that the flush of its log
            // record covers (and so this commit's, logged before it), while other writers
            // commit; their waits end with one flush.
            if commitsBeforeFlush { pending.append(Self.waitForFlush, []) }
            // The other stores learn of the commit once it is made: notifying in the write's
            // own transaction would hold PostgreSQL's lock on notifications, one for the
            // whole server, until the commit is flushed to disk, so that no two
            // transactions that notify, in any database, could be flushed together.
            // A commit followed at once reads the log in this round trip (a log made before
            // sets of entries is read as it is asked for).
            let logged = loggedServerNumber || numberedCommit != nil
            let readAhead = logged && logHasSetColumns ? logReadWithCommits : nil
            let read = try flush(thenIgnoringFailure: commitToNotify.map(Self.commitNotification),
                                 thenReading: readAhead.map(Self.logReadAhead(after:)) ?? [])
            if let number = loggedServerNumber ? serverNumber : numberedCommit { lastKnownCommit = number }
            if let readAhead { keepLogReadAhead(read, after: readAhead) }
        } catch {
            pending.removeAll()
            // The error may be another one than theirs: the batch in flight is answered first.
            try? finishSending()
            // Statements sent ahead of a batch that now never goes (the closure threw, or a
            // read in it failed on a check sent ahead) must not take the ROLLBACK below down
            // with them: behind a failed statement, the rest of a pipeline is skipped.
            try? connection.discardSentAhead()
            let code = connection.serverCode(of: error)
            let checkFailed = code == Self.divisionByZero && (fingerprintCheck != nil || expected != nil || assumedAbsent || validation != nil)
            guard checkFailed, connection.isConnected else {
                if connection.isConnected { _ = try? connection.execute("ROLLBACK", []) }
                // Another writer held the lock for longer than the timeout: nothing was written.
                if code == Self.lockNotAvailable { throw StoreError.locked(path: location) }
                // Reading before the lock, a write can meet a migration waiting for the
                // tables it read while it waits for the lock the migration holds: the server
                // ends one of them, and this one runs again (and finds the schema changed).
                if validation != nil, code == Self.deadlockDetected { throw ReadsChanged() }
                throw error
            }
            // One of the write's checks failed it, or another statement divided by zero: the
            // fingerprint and the last commit, read again with the ROLLBACK (one round trip),
            // tell which.
            inTransaction = false
            guard let answers = try? connection.executeEach([("ROLLBACK", []), (Self.fingerprintAndLastCommitQuery, [.text(StoreMetadataKey.fingerprint)])]),
                  let row = answers.last?.first, row.count == 2 else { throw error }
            let recorded: String? = if case .text(let fingerprint) = row[0] { fingerprint } else { nil }
            if let check = fingerprintCheck, recorded != check.expected { throw FingerprintChanged(recorded: recorded) }
            if case .integer(let last) = row[1] { lastKnownCommit = last }
            if let expected, row[1] != .integer(expected) { throw StaleWrite() }
            // Under the lock, something the write read before it had changed.
            if validation != nil { throw ReadsChanged() }
            // Neither the schema nor the last commit changed: a read the write assumed
            // absent found rows.
            if assumedAbsent { throw AssumedAbsentFound() }
            throw error
        }
    }

    /// Makes the write transaction's `COMMIT` return without waiting for its flush to disk
    /// (``Store/CommitVisibility/beforeFlush``); for that transaction only. An expression,
    /// sent with the lock: no statement of its own.
    private static let commitWithoutFlush = "set_config('synchronous_commit', 'off', true)"
    /// A transaction of its own that waits for the server's log to be flushed up to its
    /// commit: the smallest one that does. It must log a record of its own (a transaction
    /// that only takes an id waits for no flush); a transactional logical message is one,
    /// which no table keeps and any role may write.
    static let waitForFlush = "SELECT pg_logical_emit_message(true, 'schemagen', '')"

    /// PostgreSQL's code for a division by zero: the check of ``transaction(expectingLastCommit:_:)``.
    private static let divisionByZero = "22012"
    /// PostgreSQL's code for a transaction ended to break a deadlock.
    private static let deadlockDetected = "40P01"

    /// Queues, before a write's first write statement, the lock of a write that read before
    /// it (``transactionValidatingReads(_:_:)``), the check that nothing it read changed
    /// since, which also numbers the commit, and the absences it relied on; once.
    private func lockValidatingReads() {
        guard validation?.lockQueued == false, var validation else { return }
        validation.lockQueued = true
        pending.append(lockPlanningStatement, [.integer(Self.writeLock)])
        plannedOnce = true
        let check = ReadValidation.check(fingerprint: fingerprintCheck.map(\.expected), since: lastCommitRead, reads: validation.reads())
        numberingStep = pending.appendRead(check.sql, check.parameters)
        for absence in validation.absences {
            pending.append(ReadValidation.failing(if: absence.found), absence.parameters)
        }
        validation.absences = []
        self.validation = validation
    }

    /// Whether what a write that read before the lock read still holds now (read without
    /// the lock): its closure threw, and the error counts only then. Nil when that cannot
    /// be told (the transaction failed).
    private func readsHeld() -> Bool? {
        guard let validation else { return true }
        let reads = validation.reads()
        guard !reads.isEmpty || !validation.absences.isEmpty else { return true }
        let (unchanged, parameters) = ReadValidation.unchanged(since: lastCommitRead, reads: reads, firstParameter: 1)
        var statements = [(sql: "SELECT CASE WHEN \(unchanged) THEN 1 ELSE 0 END", parameters: parameters)]
        statements += validation.absences.map { (ReadValidation.holding(unless: $0.found), $0.parameters) }
        guard let answers = try? execute(each: statements) else { return nil }
        return answers.allSatisfy { $0.first?.first == .integer(1) }
    }

    /// In a write transaction, the last commit number read under the write lock: no other
    /// writer commits before this one, so its own number follows without another read. In a
    /// write reading before the lock, the last commit when it first read: the one its reads
    /// are checked against (``lockValidatingReads()``).
    private var lastCommitRead: Int64?

    /// Starts a read-only snapshot (``SnapshotConnection/beginSnapshot()``): `BEGIN` and the
    /// transaction's first query, which takes the snapshot, in one round trip. That query
    /// reads the recorded fingerprint, which the snapshot's reader asks for first, and the
    /// last commit the snapshot holds (``resumeSnapshot()``). Until ``endSnapshot()``, a lost
    /// connection fails every read: the snapshot went with it, and a new connection would
    /// read another state.
    func beginSnapshot() throws {
        let statements: [(String, [StoredValue])] = [
            (Self.beginSnapshotStatement, []),
            (Self.snapshotStateQuery, [.text(StoreMetadataKey.fingerprint)]),
        ]
        let rows: [[StoredValue]]
        roundTrips += 1
        do {
            rows = try liveConnection().executeBatch(statements)
        } catch where !connection.isConnected {
            // An idle connection the server dropped: a new one, as between transactions.
            rows = try liveConnection().executeBatch(statements)
        }
        inTransaction = true
        readSnapshotState(rows.first ?? [])
    }

    /// Starts a read-only snapshot whose `BEGIN` and state (``snapshotStateQuery``) go with
    /// its first read, in that read's round trip: one round trip fewer per snapshot, the
    /// state known once that read was answered (``snapshotAwaitsFirstRead``). A snapshot
    /// ended before it read sends nothing. Its first read fails (and no later one runs) when
    /// the connection was lost while idle: the reader then begins again with
    /// ``beginSnapshot()``, which opens a new one.
    func beginSnapshotWithFirstRead() throws {
        _ = try liveConnection()
        pending.append(Self.beginSnapshotStatement, [])
        snapshotStep = pending.appendRead(Self.snapshotStateQuery, [.text(StoreMetadataKey.fingerprint)])
        inTransaction = true
    }

    var snapshotAwaitsFirstRead: Bool { snapshotStep != nil }

    private static let beginSnapshotStatement = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
    /// A snapshot's first query, which takes its snapshot: the recorded fingerprint and the
    /// last commit it holds.
    private static let snapshotStateQuery = "SELECT (\(fingerprintQuery)), (SELECT max(\"commit\") FROM \(commitLogTable))"

    /// Keeps a snapshot's state, as ``snapshotStateQuery`` answered it.
    private func readSnapshotState(_ values: [StoredValue]) {
        if case .text(let fingerprint)? = values.first { snapshotFingerprint = .some(fingerprint) } else { snapshotFingerprint = .some(nil) }
        if values.count > 1, case .integer(let commit) = values[1] { snapshotCommit = commit } else { snapshotCommit = 0 }
    }

    /// After the snapshot's connection was lost: opens a new one and a new snapshot there,
    /// and keeps it when it holds the same last commit as the lost one, so the same state
    /// (every write is a logged commit); returns whether it did. Otherwise every read of the
    /// snapshot keeps failing: its state is gone.
    func resumeSnapshot() throws -> Bool {
        guard inTransaction, !snapshotLost, !connection.isConnected, let lost = snapshotCommit else { return false }
        inTransaction = false
        do {
            try beginSnapshot()
        } catch {
            inTransaction = true
            snapshotLost = true
            throw error
        }
        guard snapshotCommit == lost else {
            snapshotLost = true
            return false
        }
        return true
    }

    func endSnapshot() {
        snapshotLost = false
        if snapshotStep != nil, !pending.isEmpty {
            // Begun with a first read that never came: nothing was sent.
            pending.removeAll()
        } else if pending.isEmpty, sending == nil {
            // Nothing to wait for: the next use of the connection (the next snapshot's BEGIN)
            // reads the answer. A connection already lost took its transaction with it.
            if connection.isConnected { connection.sendWithoutWaiting("ROLLBACK") }
        } else {
            _ = try? execute("ROLLBACK")
        }
        inTransaction = false
        snapshotFingerprint = nil
        snapshotCommit = nil
        snapshotStep = nil
    }

    func readTransaction<Result>(_ body: () throws -> Result) throws -> Result {
        guard !inTransaction else { return try body() }
        if logReadAhead != nil, sending == nil, connection.isConnected {
            // Begun by the write before, which read the log in it: joined.
        } else {
            // A connection lost since the last transaction is replaced before this one
            // starts; its BEGIN goes with its first read (one round trip fewer).
            _ = try liveConnection()
            pending.append(Self.beginReading, [])
        }
        inTransaction = true
        defer {
            inTransaction = false
            logReadAhead = nil
        }
        do {
            let result = try body()
            // Nothing to wait for (it only read): the connection's next use reads the answer.
            if pending.isEmpty, sending == nil, connection.isConnected {
                connection.sendWithoutWaiting("COMMIT")
            } else {
                try execute("COMMIT")
            }
            return result
        } catch {
            if connection.isConnected { _ = try? execute("ROLLBACK") }
            throw error
        }
    }

    func readLogWithCommits(after commit: Int64?) {
        logReadWithCommits = commit
    }

    /// What a write that commits sends behind its commit to read the log after `commit`
    /// for the next read transaction (``readLogWithCommits(after:)``): that transaction's
    /// `BEGIN` and the log's read, which takes its snapshot. They run once the commit is
    /// made: the snapshot holds it, and any commits made since.
    private static func logReadAhead(after commit: Int64) -> [(sql: String, parameters: [StoredValue])] {
        [(beginReading, []), (logQuery, [.integer(commit)])]
    }

    /// A read transaction's `BEGIN`: one state, whatever commits meanwhile.
    private static let beginReading = "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"

    /// Keeps the log a write read after its commit (`answers`, of ``logReadAhead(after:)``),
    /// its transaction left open for the next read transaction; ends that transaction when
    /// the read failed or did not go.
    private func keepLogReadAhead(_ answers: [[[StoredValue]]]?, after commit: Int64) {
        guard let answers, answers.count == 2, let entries = try? logEntries(answers[1]) else {
            endLogReadAhead()
            return
        }
        logReadAhead = (commit, entries)
    }

    /// The log after `commit` as the write before read it, in the read transaction under
    /// way (joined by ``readTransaction(_:)``); once.
    func takeLogReadAhead(after commit: Int64) -> [(commit: Int64, entry: CommitLog.Entry)]? {
        guard inTransaction, let read = logReadAhead else { return nil }
        logReadAhead = nil
        return read.after == commit ? read.entries : nil
    }

    /// Ends the transaction a write began to read the log in, unused (or never begun: a
    /// `ROLLBACK` outside a transaction does nothing).
    private func endLogReadAhead() {
        logReadAhead = nil
        if connection.isConnected { connection.sendWithoutWaiting("ROLLBACK") }
    }

    /// The last commit number: it changes with every commit, this store's own included
    /// (``countsOwnCommits``).
    func externalCommitCounter() throws -> Int64? {
        try lastCommit()
    }

    var countsOwnCommits: Bool { true }

    var waitsForAServer: Bool { true }

    func runWhileWaiting(_ work: @escaping @Sendable () -> Void) -> Bool {
        whileWaiting = work
        connection.whileWaiting = work
        return true
    }

    func listenForCommits() -> Bool {
        guard !listensForCommits else { return true }
        listensForCommits = true
        do {
            try liveConnection().listen(CommitListener.channel)
        } catch {
            // Replaced at the next statement by a connection that listens.
            connection.close()
        }
        return true
    }

    func receivedCommits(readingSocket: Bool) throws -> ReceivedCommits? {
        guard listensForCommits else { return nil }
        var received = ReceivedCommits.none
        if connection.isConnected {
            let payloads = try connection.receivedNotifications(readingSocket: readingSocket)
            let numbers = payloads.compactMap { Int64($0) }
            if !payloads.isEmpty { received.commits = numbers.count == payloads.count ? .upTo(numbers.max()!) : .unknown }
            if let heard = numbers.max(), heard > lastKnownCommit ?? 0 { lastKnownCommit = heard }
            received.count = payloads.count
            received.socket = connection.socketDescriptor
        }
        return received
    }

    /// The last commit and the fingerprint in one statement: a catch-up under the writers'
    /// lock waits for one round trip fewer. Outside a transaction, with `commit`: `BEGIN`,
    /// that statement and the log's read after `commit`, in one round trip and one snapshot;
    /// the transaction stays open for the catch-up's read transaction, which joins it
    /// (``readTransaction(_:)``), unless the log named nothing.
    func externalCommitCounterAndFingerprint(readingLogAfter commit: Int64?) throws -> (counter: Int64?, fingerprint: String?)? {
        guard let commit, !inTransaction, try logHasSets() else {
            let (fingerprint, last) = try fingerprintAndLastCommit()
            return (last, fingerprint)
        }
        do {
            return try counterAndFingerprintReadingLog(after: commit)
        } catch where !connection.isConnected {
            // An idle connection the server dropped (a restart): nothing was read, and a
            // new connection reads it all, as between transactions.
            return try counterAndFingerprintReadingLog(after: commit)
        }
    }

    /// ``externalCommitCounterAndFingerprint(readingLogAfter:)`` reading the log too.
    private func counterAndFingerprintReadingLog(after commit: Int64) throws -> (counter: Int64?, fingerprint: String?) {
        _ = try liveConnection()
        pending.append(Self.beginReading, [])
        do {
            let answers = try execute(each: [(Self.fingerprintAndLastCommitQuery, [.text(StoreMetadataKey.fingerprint)]), (Self.logQuery, [.integer(commit)])])
            let (fingerprint, last) = readFingerprintAndLastCommit(answers[0])
            let entries = try logEntries(answers[1])
            if entries.isEmpty { endLogReadAhead() } else { logReadAhead = (commit, entries) }
            return (last, fingerprint)
        } catch {
            pending.removeAll()
            endLogReadAhead()
            throw error
        }
    }

    func discardLogReadAhead() {
        if logReadAhead != nil, !inTransaction { endLogReadAhead() }
    }

    func recordedFingerprint() throws -> String? {
        // In a transaction (a write on demand checks the schema first, under the write
        // lock), the last commit in the same round trip: the write then numbers its commit
        // without reading it again (``nextCommit()``), and sends its statements and its
        // commit together.
        if inTransaction { return try fingerprintAndLastCommit().fingerprint }
        if case .text(let fingerprint)? = try execute(Self.fingerprintQuery, [.text(StoreMetadataKey.fingerprint)]).first?.first { return fingerprint }
        return nil
    }

    /// The recorded fingerprint and the last commit (0 before the first), in one statement;
    /// in a transaction the last commit is remembered (``lastCommitRead``).
    private func fingerprintAndLastCommit() throws -> (fingerprint: String?, last: Int64?) {
        readFingerprintAndLastCommit(try execute(Self.fingerprintAndLastCommitQuery, [.text(StoreMetadataKey.fingerprint)]))
    }

    /// The answer of ``fingerprintAndLastCommitQuery``.
    private func readFingerprintAndLastCommit(_ rows: [[StoredValue]]) -> (fingerprint: String?, last: Int64?) {
        guard let row = rows.first, row.count == 2 else { return (nil, nil) }
        var last: Int64?
        if case .integer(let number) = row[1] {
            last = number
            lastKnownCommit = number
            if inTransaction { lastCommitRead = number }
        }
        if case .text(let fingerprint) = row[0] { return (fingerprint, last) }
        return (nil, last)
    }

    /// The last commit's number (0 before the first), as a subquery.
    static let lastCommitQuery = "(SELECT coalesce(max(\"commit\"), 0) FROM \(commitLogTable))"
    /// The recorded fingerprint and the last commit: one row.
    static let fingerprintAndLastCommitQuery = "SELECT (\(fingerprintQuery)), \(lastCommitQuery)"

    /// In a write, checked with the write's next statements, in their round trip (its first
    /// read, or its commit): a division by zero when the fingerprint changed aborts the
    /// transaction before any of them runs, and ``writeTransaction(expecting:_:)`` then
    /// tells it from another failure by reading the fingerprint. The check reads the last
    /// commit too (``lastCommitRead``).
    func expectFingerprint(_ expected: String?) throws {
        guard inTransaction, fingerprintCheck == nil, !inSnapshot else { return try checkFingerprintNow(expected) }
        let parameters = [.text(StoreMetadataKey.fingerprint), expected.map(StoredValue.text) ?? .null]
        let lastCommit = Self.lastCommitQuery
        // The statement numbering the commit, just before: one statement does both.
        if let step = numberingStep, sentAhead == 0, pending.replaceLast(step, with: """
            SELECT 1 / (CASE WHEN (\(Self.fingerprintQuery)) IS NOT DISTINCT FROM $2 THEN 1 ELSE 0 END), \
            set_config('\(Self.commitSetting)', (\(lastCommit) + 1)::text, true)
            """, parameters) {
            fingerprintCheck = (expected, step)
            return
        }
        let step = pending.appendRead("""
            SELECT 1 / (CASE WHEN (\(Self.fingerprintQuery)) IS NOT DISTINCT FROM $2 THEN 1 ELSE 0 END), \(lastCommit)
            """, parameters)
        // Its answer's place in the batch's answers, which begin with those of statements
        // sent ahead (sending more ahead later keeps it).
        fingerprintCheck = (expected, sentAhead + step)
    }

    /// In a write, a check sent with the write's next statements, in their round trip: it
    /// divides by zero, aborting the transaction before the statements after it run, when
    /// any of `selects` finds a row; ``writeTransaction(expecting:_:)`` then tells it from
    /// the other checks (``AssumedAbsentFound``). Outside a write, checked at once.
    func expectNoRows(_ selects: [SQLSelect]) throws {
        guard !selects.isEmpty else { return }
        var renderer = SQLRenderer(dialect)
        let found = selects.map { "EXISTS (\(renderer.render($0)))" }.joined(separator: " OR ")
        let check = ReadValidation.failing(if: found)
        if validation?.lockQueued == false {
            // Before the lock, a check would hold for now only: it goes after the lock.
            validation?.absences.append((found, renderer.bindings))
            return
        }
        guard inTransaction, !inSnapshot else {
            if try execute("SELECT CASE WHEN \(found) THEN 1 ELSE 0 END", renderer.bindings).first?.first == .integer(1) { throw AssumedAbsentFound() }
            return
        }
        try run(check, renderer.bindings)
        assumedAbsent = true
        try sendCheckAhead()
    }

    /// Sends a check just queued (``expectNoRows(_:)``) ahead too, with what waits before
    /// it, when the write's first statements went ahead already and nothing waiting could
    /// be fused: the server runs it while this thread goes on with the write, rather than
    /// after the write's last statement comes (a write on demand that creates what it
    /// touches checks so before it spells its rows).
    private func sendCheckAhead() throws {
        guard sentAhead > 0, sending == nil, pending.holdsNothingFusable, let statements = pending.completeStatements(),
              !statements.isEmpty else { return }
        if try liveConnection().sendAhead(statements) {
            pending.removeComplete()
            sentAhead += statements.count
        }
    }

    func lastCommit() throws -> Int64? {
        let last = try integer("SELECT max(\"commit\") FROM \(Self.commitLogTable)")
        if inTransaction { lastCommitRead = last }
        lastKnownCommit = last
        return last
    }

    /// The number the transaction's commit gets.
    fileprivate func nextCommit() throws -> Int64 {
        let number = try lastCommitRead.map { $0 + 1 } ?? integer("SELECT \(Self.lastCommitQuery) + 1")
        numberedCommit = number
        return number
    }

    func row(_ entity: any AnyEntityPersister, id: StoredValue) throws -> [StoredValue]? {
        let columns = entity.columns.map { quoted($0.name) }.joined(separator: ", ")
        return try execute("SELECT \(columns) FROM \(quoted(entity.tableName)) WHERE \(quoted(entity.columns[0].name)) = $1", [id])
            .first.map { Self.typed($0, entity.columns.map(\.type)) }
    }

    func targets(_ link: LinkLayout, owner: StoredValue) throws -> [StoredValue] {
        try execute("SELECT target FROM \(quoted(link.name)) WHERE owner = $1\(link.isToMany ? " ORDER BY position" : "")", [owner]).map { $0[0] }
    }

    func rows(_ entity: any AnyEntityPersister, ids: [StoredValue]) throws -> [StoredValue: [StoredValue]] {
        try read(BatchedRead(rows: [(entity.tableName, entity, ids)])).rows[entity.tableName] ?? [:]
    }

    func targets(_ link: LinkLayout, owners: [StoredValue]) throws -> [StoredValue: [StoredValue]] {
        try read(BatchedRead(targets: [(link.name, link, owners)])).targets[link.name] ?? [:]
    }

    /// Each owner's last links found by the `(owner, position)` index.
    func lastTargets(_ link: LinkLayout, owners: [(owner: StoredValue, count: Int)]) throws -> [StoredValue: [StoredValue]] {
        try read(BatchedRead(lastTargets: [(link.name, link, owners)])).targets[link.name] ?? [:]
    }

    /// Every request's statements in one round trip: one per 1,000 ids or owners.
    func read(_ request: BatchedRead) throws -> BatchedRead.Answer {
        var answer = BatchedRead.Answer()
        var statements: [(sql: String, parameters: [StoredValue])] = []
        // What reads each statement's rows into the answer.
        var readers: [([[StoredValue]], inout BatchedRead.Answer) -> Void] = []
        for (name, entity, ids) in request.rows {
            answer.rows[name] = answer.rows[name] ?? [:]
            let columns = entity.columns.map { quoted($0.name) }.joined(separator: ", "), types = entity.columns.map(\.type)
            for statement in Self.inLists(ids, { "SELECT \(columns) FROM \(quoted(entity.tableName)) WHERE \(quoted(entity.columns[0].name)) IN (\($0))" }) {
                statements.append(statement)
                readers.append { rows, answer in for row in rows { answer.rows[name]![row[0]] = Self.typed(row, types) } }
            }
        }
        func readTargets(_ name: String) -> ([[StoredValue]], inout BatchedRead.Answer) -> Void {
            { rows, answer in for row in rows { answer.targets[name]![row[0], default: []].append(row[1]) } }
        }
        for (name, link, owners) in request.targets {
            answer.targets[name] = answer.targets[name] ?? [:]
            let order = link.isToMany ? "owner, position" : "owner"
            for statement in Self.inLists(owners, { "SELECT owner, target FROM \(quoted(link.name)) WHERE owner IN (\($0)) ORDER BY \(order)" }) {
                statements.append(statement)
                readers.append(readTargets(name))
            }
        }
        for (name, link, owners) in request.lastTargets {
            answer.targets[name] = answer.targets[name] ?? [:]
            let sql = """
                SELECT o.owner, l.target FROM unnest($1::\(Self.columnType(link.ownerEntity.idType))[], $2::bigint[]) WITH ORDINALITY AS o(owner, count, n) \
                CROSS JOIN LATERAL (SELECT target, position FROM \(quoted(link.name)) WHERE owner = o.owner ORDER BY position DESC LIMIT o.count) AS l \
                ORDER BY o.n, l.position
                """
            for start in stride(from: 0, to: owners.count, by: PendingWrites.listValuesPerStatement) {
                let batch = owners[start..<min(start + PendingWrites.listValuesPerStatement, owners.count)]
                statements.append((sql, [.text(ServerArrayLiteral.encode(batch.map(\.owner))),
                                          .text(ServerArrayLiteral.encode(batch.map { .integer(Int64($0.count)) }))]))
                readers.append(readTargets(name))
            }
        }
        guard !statements.isEmpty else { return answer }
        for (rows, reader) in zip(try execute(each: statements), readers) { reader(rows, &answer) }
        return answer
    }

    /// The statements `sql` makes of a placeholder list (`$1, $2, ...`), one per 1,000 of
    /// `values`, each bound to its values.
    private static func inLists(_ values: [StoredValue], _ sql: (String) -> String) -> [(sql: String, parameters: [StoredValue])] {
        stride(from: 0, to: values.count, by: PendingWrites.listValuesPerStatement).map { start in
            let batch = Array(values[start..<min(start + PendingWrites.listValuesPerStatement, values.count)])
            return (sql(batch.indices.map { "$\($0 + 1)" }.joined(separator: ", ")), batch)
        }
    }

    func archive(name: String, id: StoredValue) throws -> Data? {
        let rows = try execute("SELECT archive FROM \(Self.archiveTable) WHERE name = $1 AND id = $2", [.text(name), .text(ServerValueText.encode(id))])
        guard let value = rows.first?.first else { return nil }
        guard case .blob(let json) = value else { throw StoreError.corrupt(path: location, reason: "a record of schemagen:archive is unreadable") }
        return json
    }

    func close() {
        try? finishSending()
        connection.close()
    }

    // MARK: Values

    /// A value read back as its column's stored type says (a `bytea` arrives as a blob, a
    /// `double precision` as a real: the same as SQLite gives).
    static func typed(_ row: [StoredValue], _ types: [StoredType]) -> [StoredValue] {
        zip(row, types).map { value, type in
            if type == .real, case .integer(let integer) = value { return .real(Double(integer)) }
            return value
        }
    }

    /// A value kept as ``ServerValueText``; nil when the text is not one.
    static func decoded(_ value: StoredValue) -> StoredValue? {
        guard case .text(let text) = value else { return nil }
        return ServerValueText.decode(text)
    }

    // MARK: Writes

    /// A write's statements are planned once per connection (a generic plan): PostgreSQL
    /// would otherwise plan some of them again on every run (a custom plan for each array of
    /// rows; 60 µs of a 0.6 ms write for a list append), while their plans never depend on
    /// the values. Reads in the write go back to plans for their values (``execute(_:_:)``).
    ///
    /// Those plans also never scan a table in full where an index finds the rows
    /// (`enable_seqscan` off): a write names the rows it touches, by key, owner or term,
    /// and its plan lasts as long as the connection, or until the table's next vacuum or
    /// analyze. Planned on a new database, whose tables then fit in a page, a plan scanning
    /// the whole table looks cheapest, and then kept scanning it as it grew: the commit
    /// log's pruning did so every 16 commits, through the log's dead rows (0.4-0.7 ms a
    /// time in `postgres-single`; `GrownTableScanTests`). A statement no index serves still
    /// scans. Nor are they compiled (`jit` off): the cost that setting adds to a scan
    /// nothing else serves (a full-text index's one-row totals) took them past
    /// `jit_above_cost`, and compiling a write's statement took 40-160 ms.
    private func planOnce() {
        // Only in a write transaction (the setting lasts until it ends), not in a writer's
        // opening one, which writes rarely.
        guard inTransaction, !plannedOnce else { return }
        pending.append(Self.planningGenerically, [])
        plannedOnce = true
    }

    /// Sets generic plans, which scan no table in full where an index serves and are never
    /// compiled (``planOnce()``), until the transaction ends (as `SET LOCAL`), as an
    /// expression: a write that reads nothing first sets them with its lock
    /// (``writeTransaction(expecting:numberedOnServer:_:)``).
    private static let planGenerically = "set_config('plan_cache_mode', 'force_generic_plan', true), set_config('enable_seqscan', 'off', true), set_config('jit', 'off', true)"
    /// The statements setting them, spelled once (each write sends one).
    static let planningGenerically = "SELECT \(planGenerically)"
    private static let lockPlanningGenerically = "SELECT pg_advisory_xact_lock($1), \(planGenerically)"

    /// How many complete statements a write's batch holds before they go ahead of the rest
    /// (``sendAhead()``): a write's `BEGIN`, lock and check.
    static let aheadStatements = 3

    /// Sends a write's first statements ahead of the rest of its batch, once per batch when
    /// ``aheadStatements`` are complete: the server begins the transaction and takes the
    /// lock while this thread spells the rest, instead of starting when all of it comes.
    /// A single write takes about 12% less time (docs/PostgreSQL-figures.md). Their answers come
    /// first in the batch's (``ServerConnection/sendAhead(_:)``).
    private func sendAhead() throws {
        guard inTransaction, sentAhead == 0, sending == nil, pending.completeCount >= Self.aheadStatements,
              let statements = pending.completeStatements() else { return }
        if try liveConnection().sendAhead(statements) {
            pending.removeComplete()
            sentAhead = statements.count
        }
    }

    /// What each write statement queued needs first: the generic plans set, then the
    /// statements before it sent ahead when they are due (the setting with them, so that
    /// the write's last batch holds one statement fewer).
    private func beforeQueueingWrite() throws {
        lockValidatingReads()
        planOnce()
        try sendAhead()
    }

    /// What ``planGenerically`` set, back to the connection's own settings (but `jit`: a
    /// read in a write reads few rows).
    static let planForValues = ["SET LOCAL plan_cache_mode TO DEFAULT", "SET LOCAL enable_seqscan TO DEFAULT"]

    /// A write whose answer nothing waits for: sent with the next batch, as part of one
    /// statement with the writes beside it when it declares its tables (`fusion`).
    func run(_ sql: String, _ parameters: [StoredValue], fusion: StatementFusion? = nil) throws {
        try beforeQueueingWrite()
        pending.append(sql, parameters, fusion: fusion)
        if pending.count >= 20_000 { try sendPending() }
    }

    /// A value of a `DELETE ... IN` list, sent with the next batch, merged with the deletes
    /// just before it from the same table.
    func delete(head: String, tail: String = "", _ value: StoredValue, fusion: StatementFusion? = nil) throws {
        try beforeQueueingWrite()
        pending.appendListValue(head: head, tail: tail, value, fusion: fusion)
        if pending.count >= 20_000 { try sendPending() }
    }

    /// A row to insert, sent with the rows before it of the same statement as one array per
    /// column (`types`, PostgreSQL's; ``PendingWrites/appendColumnRow(head:types:tail:_:key:)``):
    /// `head` ends where `unnest(...)` goes (`INSERT INTO t (a, b) SELECT * FROM `).
    func insertColumns(head: String, types: [String], tail: String = "", _ values: [StoredValue], key: StoredValue?,
                       fusion: StatementFusion? = nil) throws {
        try beforeQueueingWrite()
        pending.appendColumnRow(head: head, types: types, tail: tail, values, key: key, fusion: fusion)
        if pending.count >= 50_000 { try sendPending() }
    }

    /// A row of a plain insert, sent with the rows before it of the same insert
    /// (``RowInsert``): as column arrays, or by `COPY` when they are many.
    func insertRow(_ insert: RowInsert, _ values: [StoredValue]) throws {
        try beforeQueueingWrite()
        pending.appendColumnRow(head: insert.head, types: insert.types, values, key: nil, copy: insert.copy, fusion: insert.fusion)
        if pending.count >= 50_000 { try sendPending() }
    }

    /// `count` rows of `insert`, already spelled in `COPY`'s text format (``ServerCopyRows``).
    func copyRows(_ insert: RowInsert, _ rows: [UInt8], count: Int) throws {
        try beforeQueueingWrite()
        pending.appendCopy(insert.copy, rows: rows, count: count, fusion: insert.fusion)
        if pending.count >= 50_000 { try sendPending() }
    }
}

/// The writes of one PostgreSQL transaction: the statements of ``SQLiteTransaction`` in
/// PostgreSQL's spelling.
private struct PostgreSQLTransaction: StoreTransaction {
    let backend: PostgreSQLBackend

    func upsertRow(_ entity: any AnyEntityPersister, _ values: [StoredValue], isNew: Bool) throws {
        let upsert = backend.upsert(entity)
        if isNew { return try backend.insertRow(upsert.insert, values) }
        try backend.insertColumns(head: upsert.insert.head, types: upsert.insert.types, tail: upsert.tail, values, key: values[0],
                                  fusion: upsert.insert.fusion)
    }

    func deleteRow(_ entity: any AnyEntityPersister, id: StoredValue) throws {
        try backend.run("DELETE FROM \(quoted(entity.tableName)) WHERE \(quoted(entity.columns[0].name)) = $1", [id],
                        fusion: .modifying(quoted(entity.tableName)))
    }

    func setLink(_ link: LinkLayout, owner: StoredValue, target: StoredValue, isNew: Bool) throws {
        let insert = backend.linkInsert(link)
        if isNew { return try backend.insertRow(insert, [owner, target]) }
        try backend.insertColumns(head: insert.head, types: insert.types, tail: " ON CONFLICT (owner) DO UPDATE SET target = EXCLUDED.target",
                                  [owner, target], key: owner, fusion: insert.fusion)
    }

    func removeLinks(_ link: LinkLayout, owner: StoredValue) throws {
        try backend.delete(head: "DELETE FROM \(quoted(link.name)) WHERE owner IN", owner, fusion: .modifying(quoted(link.name)))
    }

    func removeLink(_ link: LinkLayout, owner: StoredValue, target: StoredValue) throws {
        try backend.run("DELETE FROM \(quoted(link.name)) WHERE owner = $1 AND target = $2", [owner, target], fusion: .modifying(quoted(link.name)))
    }

    func appendLinks(_ link: LinkLayout, owner: StoredValue, targets: [StoredValue], afterRemovingAll: Bool) throws {
        if afterRemovingAll {
            // A list written whole: its positions are its order.
            let insert = backend.linkInsert(link)
            for (position, target) in targets.enumerated() { try backend.insertRow(insert, [owner, .integer(Int64(position)), target]) }
            return
        }
        // After the owner's last link, found by the insert itself (no round trip to read it).
        // Appends to one table merge into one statement, one list per owner in each: every
        // row's position counts from the owner's last link before the statement.
        let append = backend.listAppend(link)
        for (rank, target) in targets.enumerated() {
            try backend.insertColumns(head: append.head, types: append.types, tail: append.tail,
                                      [owner, .integer(Int64(rank)), target], key: rank == 0 ? owner : nil, fusion: append.fusion)
        }
    }

    func addOverlay(_ record: OverlayRecord) throws {
        try backend.run("""
            INSERT INTO \(PostgreSQLBackend.overlayTable) (kind, name, id, pack) VALUES ($1, $2, $3, $4) \
            ON CONFLICT (kind, name, id) DO UPDATE SET pack = EXCLUDED.pack
            """, [.text(record.kind.rawValue), .text(record.name), .text(ServerValueText.encode(record.id)), .text(record.pack.uuidString)],
            fusion: .modifying(PostgreSQLBackend.overlayTable))
    }

    func removeOverlay(_ kind: OverlayRecord.Kind, name: String, id: StoredValue) throws {
        try backend.run("DELETE FROM \(PostgreSQLBackend.overlayTable) WHERE kind = $1 AND name = $2 AND id = $3",
                        [.text(kind.rawValue), .text(name), .text(ServerValueText.encode(id))], fusion: .modifying(PostgreSQLBackend.overlayTable))
    }

    func upsertArchive(name: String, id: StoredValue, json: Data) throws {
        try backend.run("""
            INSERT INTO \(PostgreSQLBackend.archiveTable) (name, id, archive) VALUES ($1, $2, $3) \
            ON CONFLICT (name, id) DO UPDATE SET archive = EXCLUDED.archive
            """, [.text(name), .text(ServerValueText.encode(id)), .blob(json)],
            fusion: .modifying(PostgreSQLBackend.archiveTable))
    }

    func removeArchive(name: String, id: StoredValue) throws {
        try backend.run("DELETE FROM \(PostgreSQLBackend.archiveTable) WHERE name = $1 AND id = $2", [.text(name), .text(ServerValueText.encode(id))],
                        fusion: .modifying(PostgreSQLBackend.archiveTable))
    }

    func appendCommit(_ entries: [CommitLog.Entry]) throws -> Int64? {
        if backend.numbersOnServer { return try appendCommitNumberedOnServer(entries) }
        // Under the write lock: no other writer numbers a commit meanwhile.
        let commit = try backend.nextCommit()
        try backend.insertLogEntries(entries, commit: .integer(commit))
        // The commits that fall out of the log, every 16 commits (a statement fewer in the
        // other writes; the log keeps up to 15 more): a range below the kept ones, not every
        // commit up to them, which PostgreSQL would scan through the dead entries of all
        // those deleted before until a vacuum (0.2 ms a write, most of its statements' time).
        // Twice the range, for commits numbered while another build pruned at each.
        let every = PostgreSQLBackend.pruneEvery
        if commit % every == 0 {
            try backend.run("DELETE FROM \(PostgreSQLBackend.commitLogTable) WHERE \"commit\" > $1 AND \"commit\" <= $2",
                            [.integer(commit - CommitLog.retainedCommits - 2 * every), .integer(commit - CommitLog.retainedCommits)],
                            fusion: PostgreSQLBackend.commitLogWrite)
        }
        // Every store listening hears of it once it committed (CommitListener).
        backend.commitToNotify = .numbered(commit)
        return commit
    }

    /// ``appendCommit(_:)`` for a commit the server numbers as it runs: the same statements,
    /// reading the number from the transaction's setting. Whether to prune goes by the number
    /// this connection expects (the next after the last it knows of); the range pruned, by
    /// the server's.
    private func appendCommitNumberedOnServer(_ entries: [CommitLog.Entry]) throws -> Int64? {
        let number = PostgreSQLBackend.serverCommitNumber
        try backend.insertLogEntries(entries, commit: nil)
        backend.loggedServerNumber = true
        let every = PostgreSQLBackend.pruneEvery
        if ((backend.lastKnownCommit ?? 0) + 1) % every == 0 {
            try backend.run("DELETE FROM \(PostgreSQLBackend.commitLogTable) WHERE \"commit\" > \(number) - $1 AND \"commit\" <= \(number) - $2",
                            [.integer(CommitLog.retainedCommits + 2 * every), .integer(CommitLog.retainedCommits)],
                            fusion: PostgreSQLBackend.commitLogWrite)
        }
        // Its number, for the notification behind the commit: in the statement the log's
        // entries end, as its main `SELECT` (no statement more).
        try backend.run("SELECT set_config('\(PostgreSQLBackend.notifiedSetting)', current_setting('\(PostgreSQLBackend.commitSetting)'), false)", [],
                        fusion: .selectingNoTable)
        backend.commitToNotify = .numberedOnServer
        return nil
    }

    /// Every writer's open makes the tables of every full-text index (``syncFullText``).
    func fullTextIndexesPresent(_ layout: StoreLayout) throws -> Set<String> {
        layout.fullTextTermsTables
    }

    func updateFullText(_ index: FullTextLayout, id: StoredValue, text: String?, isNew: Bool) throws -> (documents: Int, length: Int) {
        backend.fullTextChanges[index.termsTable, default: FullTextChanges()].update(id: id, text: text, isNew: isNew)
    }

    func addToFullTextTotals(_ index: FullTextLayout, documents: Int, length: Int) throws {
        try backend.writeFullText(index, addedDocuments: documents, addedLength: length)
    }
}
