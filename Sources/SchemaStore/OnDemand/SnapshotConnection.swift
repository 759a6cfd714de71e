import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// What the on-demand store reads through: a connection to the store's database (a SQLite
/// file, ``SQLiteBackend``, or a PostgreSQL server, ``PostgreSQLBackend``) that can pin one
/// committed state and answer compiled queries on it. A store answering queries through SQL
/// (``OnDemandReading``, ``OnDemandSnapshot``, ``OnDemandWrite``) needs nothing else.
protocol SnapshotConnection: StoreBackend {
    /// How the database spells the compiled queries.
    var dialect: any SQLDialect { get }
    /// For a user store shown over its packs: the union its tables are read as (every row
    /// read then has a source, ``PackUnion/sourceColumn``); nil otherwise.
    var packUnion: PackUnion? { get }
    /// Starts a read transaction that sees the database as it is now until ``endSnapshot()``,
    /// whatever other connections commit meanwhile.
    func beginSnapshot() throws
    /// ``beginSnapshot()``, where the database can take the snapshot with its first read
    /// instead (a server: in that read's round trip); until that read was answered,
    /// ``snapshotAwaitsFirstRead`` is true and ``snapshotCommit`` nil.
    func beginSnapshotWithFirstRead() throws
    /// Whether the snapshot was begun with its first read and that read was not answered yet.
    var snapshotAwaitsFirstRead: Bool { get }
    /// How many times the connection waited for a server's answers so far (0 for a file).
    var roundTrips: Int { get }
    func endSnapshot()
    /// The number of the last commit in the ``CommitLog`` as the snapshot sees it (0 for
    /// none yet), read by ``beginSnapshot()``; nil where the database keeps no log. Two
    /// snapshots with the same number see the same rows: every write that changes what
    /// readers see logs a commit.
    var snapshotCommit: Int64? { get }
    /// After a read of the snapshot failed: whether the connection could take up the same
    /// state again (a server connection lost while nothing was committed), so that the read
    /// can run again. False where a failure is final (a file).
    func resumeSnapshot() throws -> Bool
    /// Runs `select`, passing each row's values to `body`.
    func rows(_ select: SQLSelect, _ body: ([StoredValue]) throws -> Void) throws
    /// Runs each of `selects`, in order; returns each one's rows. A server's are sent
    /// together, in one round trip.
    func rows(ofEach selects: [SQLSelect]) throws -> [[[StoredValue]]]
    /// The database's plan for `select`, one line per step.
    func queryPlan(_ select: SQLSelect) throws -> [String]
    /// The recorded schema fingerprint (nil for an empty database).
    func currentFingerprint() throws -> String?
    /// In a write transaction: fails the write with ``FingerprintChanged`` unless the
    /// recorded fingerprint is `expected`. A server checks it with the write's next
    /// statements, in their round trip, before any of them runs.
    func expectFingerprint(_ expected: String?) throws
    /// Whether a write is better off assuming what it reads and checking that with its
    /// commit (``expectNoRows(_:)``): true where each read costs a round trip (a server);
    /// false for a file, whose writes read what they touch at once.
    var checksAssumedReads: Bool { get }
    /// Whether a query's select also reads, as `LEFT JOIN`s, the to-one links its rows are
    /// followed through and the rows those link to (``SubgraphLoader``): true where each
    /// statement costs a round trip (a server), which that saves; false for a file.
    var joinsToOneFollows: Bool { get }
    /// In a write transaction: fails the write with ``AssumedAbsentFound`` if any of
    /// `selects` finds a row. A server checks it with the write's next statements, in their
    /// round trip, before any later one runs.
    func expectNoRows(_ selects: [SQLSelect]) throws
    /// The ids of the archives of the entity `name`, in storage order.
    func archiveIDs(name: String) throws -> [StoredValue]
    /// Whether the database has `index` as the layout declares it: a file only resident
    /// stores wrote has none.
    func hasSQLIndex(_ index: SQLIndex) throws -> Bool
    /// Whether the database keeps `index`'s postings (ranked full text read in SQL).
    func hasFullText(_ index: FullTextLayout) throws -> Bool
    func fullTextIDs(_ index: FullTextLayout, of entity: any AnyEntityPersister, tokens: [String]) throws -> [StoredValue]
    func fullTextStatistics(_ index: FullTextLayout, tokens: [String]) throws -> FullTextStatistics
}

extension SnapshotConnection {
    func beginSnapshotWithFirstRead() throws { try beginSnapshot() }
    var snapshotAwaitsFirstRead: Bool { false }
    var roundTrips: Int { 0 }
    func resumeSnapshot() throws -> Bool { false }
    var snapshotCommit: Int64? { nil }
    var packUnion: PackUnion? { nil }

    func expectFingerprint(_ expected: String?) throws {
        try checkFingerprintNow(expected)
    }

    var checksAssumedReads: Bool { false }
    var joinsToOneFollows: Bool { false }
    // A server's every writer creates the indexes its layout declares as it opens.
    func hasSQLIndex(_ index: SQLIndex) throws -> Bool { true }

    func expectNoRows(_ selects: [SQLSelect]) throws {
        for select in selects {
            var found = false
            try rows(SQLSelect(output: select.output, table: select.table, join: select.join, filter: select.filter, limit: 1)) { _ in found = true }
            if found { throw AssumedAbsentFound() }
        }
    }

    /// ``expectFingerprint(_:)`` at once: reads the recorded fingerprint now.
    func checkFingerprintNow(_ expected: String?) throws {
        let recorded = try currentFingerprint()
        if recorded != expected { throw FingerprintChanged(recorded: recorded) }
    }

    func rows(ofEach selects: [SQLSelect]) throws -> [[[StoredValue]]] {
        try selects.map { select in
            var rows: [[StoredValue]] = []
            try self.rows(select) { rows.append($0) }
            return rows
        }
    }

    /// The single integer `select` returns (a count).
    func integer(_ select: SQLSelect) throws -> Int {
        var result = 0
        try rows(select) { values in
            if case .integer(let value) = values.first { result = Int(value) }
        }
        return result
    }
}
