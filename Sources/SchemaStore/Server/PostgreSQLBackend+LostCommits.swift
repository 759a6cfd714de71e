@_spi(SchemaStore) import SchemaRuntime

/// Commits the server lost after stores read them.
///
/// A store can read a commit that is not on disk yet: with
/// ``Store/CommitVisibility/beforeFlush``, or on a standby promoted while it lagged behind.
/// A crash of the server (or the failover) then loses it, and the next writer would give
/// its number to another commit. Stores tell states apart by commit number alone (a
/// follower's last commit, a snapshot's kept rows, a write's checked reads), so no number is
/// given twice: the first writer after such a loss numbers on past a gap of
/// ``numbersSkippedAfterLoss``. Every store that knew a lost number then finds that the log
/// does not hold the commit after it, which each already reads as changes it cannot know:
/// a resident graph is loaded again, on-demand observers learn that anything may have
/// changed, kept rows are not reused, a write's reads count as changed.
///
/// A writer knows of the loss by the row of an unlogged table (``epochTable``), which
/// PostgreSQL empties when it recovers from a crash, and which a promoted standby or a
/// restored backup starts without. A clean restart keeps it: it loses no commit. Every
/// writer reads the row at open and on each new connection, before its first write there;
/// finding it missing, it takes the write lock, and the one that inserts it makes the gap.
extension PostgreSQLBackend {
    /// The unlogged table whose one row says that the log's numbering went past every
    /// commit the server may have lost.
    static let epochTable = quoted("schemagen:epoch")
    /// Its columns: `began` says when its row was inserted (the database's creation, or the
    /// first writer after a loss).
    private static let epochTableColumns = "(key integer PRIMARY KEY, began timestamptz NOT NULL DEFAULT now())"

    /// How far the numbering jumps after a loss: far past any number a lost commit can have
    /// had (at most the commits made while one was not flushed), and room for 2³¹ losses.
    static let numbersSkippedAfterLoss: Int64 = 1 << 32

    /// Creates the table, if missing, and its row; with the gap unless the database was
    /// just created (its log is empty, and nothing was read). In `open`, under the write lock.
    func markNumberingIntact(newDatabase: Bool) throws {
        if newDatabase {
            try execute("CREATE UNLOGGED TABLE \(Self.epochTable) \(Self.epochTableColumns)")
            try execute("INSERT INTO \(Self.epochTable) (key) VALUES (1)")
            return
        }
        // Flushed before the open ends, as ``checkNumberingIntact(on:)`` is.
        try execute("SELECT set_config('synchronous_commit', 'on', true)")
        // A database made by a version before this table: the gap once, harmless.
        if try !hasTable("schemagen:epoch") {
            try execute("CREATE UNLOGGED TABLE \(Self.epochTable) \(Self.epochTableColumns)")
        }
        try execute(Self.skipNumbersIfLost, Self.skipNumbersParameters)
    }

    /// On a writer's new connection, before anything else runs on it: the check of
    /// ``markNumberingIntact(newDatabase:)``. One round trip that reads the row, without
    /// the write lock (a connection replaced between writes, the common case, waits for no
    /// writer); only when the row is missing, a second one that takes the lock and makes
    /// the gap. That commit waits for its flush whatever the server's `synchronous_commit`
    /// says: a gap lost in a second crash with commits numbered past it would have the next
    /// gap start where it did, and give their numbers again.
    static func checkNumberingIntact(on connection: any ServerConnection) throws {
        guard try connection.execute(rowPresent, []).first?.first != .integer(1) else { return }
        _ = try connection.executeEach([
            ("BEGIN", []),
            ("SELECT pg_advisory_xact_lock($1), set_config('synchronous_commit', 'on', true)", [.integer(writeLock)]),
            (skipNumbersIfLost, skipNumbersParameters),
            ("COMMIT", []),
        ])
    }

    private static let rowPresent = "SELECT count(*) FROM \(epochTable)"

    /// Inserts the row when it is missing and, only then, an entry naming no entity past the
    /// gap (as a migration's does), which the next commits number on from.
    private static let skipNumbersIfLost = """
        WITH marked AS (INSERT INTO \(epochTable) (key) VALUES (1) ON CONFLICT DO NOTHING RETURNING key) \
        INSERT INTO \(commitLogTable) ("commit", kind, name, id) SELECT \(lastCommitQuery) + $1, $2, '', $3 FROM marked
        """
    private static let skipNumbersParameters: [StoredValue] = [
        .integer(numbersSkippedAfterLoss), .text(CommitLog.Kind.row.rawValue), .text(ServerValueText.encode(.integer(0))),
    ]
}
