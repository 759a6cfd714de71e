import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// The snapshots of a store opened ``Store/Residency/onDemand``: ``Store/context`` hands out
/// the current one, and takes a new one once the file changed.
///
/// Whether the file changed is `PRAGMA data_version` on a connection of its own, which counts
/// the commits of every other connection, this store's writes included: O(1), no file read.
/// Contexts taken between two commits share one snapshot (one connection, one read
/// transaction); it ends when the last of them is gone.
final class OnDemandReading: OnDemandWriting, @unchecked Sendable {
    private let path: String
    private let layout: StoreLayout
    /// Opens a read-only connection to the database.
    let connect: () throws -> any SnapshotConnection
    /// Where each relation slot's links are read from (shared with the store's writes).
    let links: LinkLookup
    /// What the store's writes count and learn.
    let writes = OnDemandWrites()
    private let probe: any SnapshotConnection
    /// Guards `snapshot`, `version` and `isClosed`.
    private let lock = NSLock()
    /// Guards `idle`, `openConnections`, `poolClosed` and `finished`, and wakes a read waiting
    /// for a connection. Apart from `lock`: a snapshot may end (and give its connection back)
    /// on any thread, also one holding `lock`.
    private let pool = NSCondition()
    /// The most connections snapshots hold at once (a server's), nil for no bound (a file).
    private let connectionLimit: Int?
    /// How long a ``Store/read(_:)`` waits for a connection when all are in use.
    private let connectionWait: TimeInterval
    /// Connections opened for snapshots and not closed yet (held or idle).
    private var openConnections = 0
    /// How many rows a snapshot keeps from one query for the next (``Store/Options/cachedRowsPerSnapshot``).
    private let cachedRows: Int
    /// Where the failed reads of contexts from ``context()`` go, instead of stopping the
    /// process (``Store/Options/contextReadFailure``).
    private let reportFailure: (@Sendable (any Error) -> Void)?
    /// The last snapshot handed out, while a context holds it: weak, so that a snapshot no
    /// context holds ends its read transaction at once and never pins the write-ahead log.
    private weak var snapshot: OnDemandSnapshot?
    private var version: Int64?
    /// Connections of ended snapshots, kept for the next ones (opening one costs more than
    /// starting a read transaction on it).
    private var idle: [any SnapshotConnection] = []
    private static let idleLimit = 4
    private var isClosed = false
    private var poolClosed = false
    /// Counts ``discardConnections()``: a connection opened before the last one is closed
    /// when its snapshot ends, never reused. Under `pool`.
    private var generation = 0
    /// What the snapshots did, summed as they end (see ``Store/onDemandStatistics``).
    private var finished = OnDemandStatistics()
    /// The rows the last snapshot to end read (at most ``cachedRows``), for the next snapshot
    /// of the same commit and connection generation: a file that did not change answers a new
    /// `read` from them as the snapshot that read them would. Under `pool`.
    private var kept: (rows: OnDemandSnapshot.KeptRows, generation: Int)?
    /// Whether a snapshot taken with its first read starts from kept rows
    /// (``firstReadTerms(kept:)``). Under `pool`.
    private var keptRowsPolicy = WriteAttemptPolicy()
    /// The schema fingerprint the file recorded when the store opened.
    private var fingerprint: String?
    /// Whether another store has since migrated the file to another schema: this code's
    /// layout no longer reads it, so no new snapshot is taken. Under `lock`.
    private(set) var schemaChanged = false

    /// Reads the database at `path` (a file, or a server's description) through
    /// connections `connect` opens.
    /// `probe` opens the connection that only watches for commits (by default, `connect`).
    init(path: String, layout: StoreLayout, connectionLimit: Int? = nil, connectionWait: TimeInterval = 5, cachedRows: Int = 0,
         reportFailure: (@Sendable (any Error) -> Void)? = nil,
         probe: (() throws -> any SnapshotConnection)? = nil, connect: @escaping () throws -> any SnapshotConnection) throws {
        self.cachedRows = cachedRows
        self.reportFailure = reportFailure
        self.path = path
        self.layout = layout
        self.links = LinkLookup(layout)
        self.connect = connect
        self.connectionLimit = connectionLimit.map { max($0, 1) }
        self.connectionWait = connectionWait
        self.probe = try (probe ?? connect)()
        // A first snapshot now: a file that cannot be read fails the open, not a query.
        // Not held: it ends at once and leaves its connection for the next.
        try lock.withLock { fingerprint = try current()?.recordedFingerprint() }
    }

    deinit { close() }

    /// Closes the idle connections and the probe; snapshots still held by contexts stay
    /// readable and close their connections when they end.
    func close() {
        lock.withLock { isClosed = true }
        closeIdle { poolClosed = true }
        probe.close()
    }

    /// Closes the idle connections, after `change` (under `pool`) to what decides whether
    /// connections given back are kept.
    private func closeIdle(after change: () -> Void) {
        let connections = pool.withLock {
            change()
            openConnections -= idle.count
            defer { idle.removeAll() }
            return idle
        }
        for connection in connections { connection.close() }
    }

    /// A context reading the file as it is now; an empty one once another store migrated the
    /// file to another schema (its rows are no longer this code's entities). When the
    /// database cannot be read, stops the process, or reports the error and answers an
    /// empty context (``Store/Options/contextReadFailure``).
    func context() -> Context {
        let outcome = lock.withLock { Result { try current().map { Context(reader: $0) } ?? Context() } }
        switch outcome {
        case .success(let context):
            return context
        case .failure(let error):
            guard let reportFailure else { preconditionFailure("SchemaStore: cannot read \(path): \(error)") }
            // Outside the lock: the reporter may read the store again.
            reportFailure(error)
            return Context()
        }
    }

    /// A context on a snapshot of its own, whose failed reads go to `failures` (see
    /// ``Store/read(_:)``); throws when the database cannot be read now.
    func context(reportingTo failures: ReadFailures) throws -> Context {
        // Waiting for a connection holds no lock a snapshot ending needs.
        let (changed, closed) = lock.withLock { (schemaChanged, isClosed) }
        if closed { throw StoreError.closed }
        guard !changed else { return Context() }
        let (connection, generation) = try takeConnection(waiting: true)
        return try lock.withLock {
            let snapshot: OnDemandSnapshot
            // On a server, the snapshot is taken with its first read, which checks the
            // fingerprint too (one round trip fewer for the scope).
            let kept = keptRows(generation: generation)
            do {
                snapshot = try OnDemandSnapshot(backend: connection, layout: layout, links: links, failures: failures,
                                                cachedRows: cachedRows, resuming: kept,
                                                firstRead: firstReadTerms(kept: kept)) { [weak self] connection, statistics, rows in
                    self?.recycle(connection, statistics, rows, generation: generation)
                }
            } catch {
                connectionClosed()
                throw error
            }
            if !snapshot.awaitsFirstRead, try snapshot.recordedFingerprint() != fingerprint {
                schemaChanged = true
                self.snapshot = nil
                return Context()
            }
            return Context(reader: snapshot)
        }
    }

    /// What a snapshot taken with its first read is given: it starts from the kept rows
    /// (`kept`, the newest) unless they were of another commit than their snapshot's of late
    /// (``WriteAttemptPolicy``, as for writes: after one that was, the next 4 snapshots
    /// start from none, twice as many after each later one). Starting from none costs a
    /// read the kept rows would have answered; from stale ones, a read run again.
    private func firstReadTerms(kept: [OnDemandSnapshot.KeptRows]) -> OnDemandSnapshot.FirstReadTerms {
        let starts = !kept.isEmpty && pool.withLock { keptRowsPolicy.tries() }
        return OnDemandSnapshot.FirstReadTerms(fingerprint: fingerprint, startsFromKeptRows: starts,
                                               schemaChanged: { [weak self] in self?.noteSchemaChanged() },
                                               keptRowsHeld: { [weak self] held in self?.recordKeptRows(held: held) })
    }

    private func recordKeptRows(held: Bool) {
        pool.withLock { keptRowsPolicy.record(held: held) }
    }

    /// Another store migrated the database, found by a snapshot's first read: later contexts
    /// are empty, as when found here.
    private func noteSchemaChanged() {
        lock.withLock {
            schemaChanged = true
            snapshot = nil
        }
    }

    /// The snapshot of the file as it is now (shared with the contexts taken since the last
    /// commit).
    func currentSnapshot() throws -> OnDemandSnapshot {
        guard let snapshot = try lock.withLock({ try current() }) else { throw StoreError.schemaChangedElsewhere(path: path) }
        return snapshot
    }

    /// The snapshot of the file as it is now: the last one while a context holds it and the
    /// file did not change since, else a new one. Called holding `lock`.
    private func current() throws -> OnDemandSnapshot? {
        guard !schemaChanged else { return nil }
        // Closed, the store reads nothing new (its server may be gone): the snapshot
        // contexts still hold, else none (an empty context).
        if isClosed { return snapshot }
        let now = try probe.externalCommitCounter()
        if let snapshot, now == version { return snapshot }
        // Never waits: a context cannot throw, and contexts taken between two commits share
        // this snapshot, so these are few.
        let (connection, generation) = try takeConnection(waiting: false)
        let next: OnDemandSnapshot
        // On a server, taken with its first query, which checks the fingerprint too; not the
        // first snapshot, which reads the fingerprint the store opens with.
        let kept = keptRows(generation: generation)
        do {
            next = try OnDemandSnapshot(backend: connection, layout: layout, links: links, reportFailure: reportFailure, cachedRows: cachedRows,
                                        resuming: kept, firstRead: version == nil ? nil : firstReadTerms(kept: kept)) { [weak self] connection, statistics, rows in
                self?.recycle(connection, statistics, rows, generation: generation)
            }
        } catch {
            connectionClosed()
            throw error
        }
        // Another store migrated the file since it opened (the first snapshot records what it had).
        if version != nil, !next.awaitsFirstRead, try next.recordedFingerprint() != fingerprint {
            schemaChanged = true
            snapshot = nil
            return nil
        }
        snapshot = next
        version = now
        return next
    }

    /// A connection for a new snapshot: an idle one, else a new one while fewer than the
    /// limit are open. At the limit, `waiting` waits for a snapshot to give one back, up to
    /// the wait, then throws; otherwise it opens one over the limit.
    private func takeConnection(waiting: Bool) throws -> (any SnapshotConnection, generation: Int) {
        let deadline = Date().addingTimeInterval(connectionWait)
        pool.lock()
        while idle.isEmpty, waiting, let limit = connectionLimit, openConnections >= limit {
            guard pool.wait(until: deadline) else {
                pool.unlock()
                throw StoreError.database(path: path, reason: """
                    all \(limit) connections of this store's reads were in use for \(connectionWait) s \
                    (Options.maximumReadConnections, Options.lockTimeout)
                    """)
            }
        }
        // Taken with the connection: one opened before the last discard is not kept.
        let generation = self.generation
        if let connection = idle.popLast() {
            pool.unlock()
            return (connection, generation)
        }
        openConnections += 1
        pool.unlock()
        do {
            return (try connect(), generation)
        } catch {
            connectionClosed()
            throw error
        }
    }

    /// One connection fewer: closed, or never opened.
    private func connectionClosed() {
        pool.withLock {
            openConnections -= 1
            pool.signal()
        }
    }

    /// Takes back the connection of an ended snapshot (opened in `generation`), and what it did.
    private func recycle(_ connection: any SnapshotConnection, _ statistics: OnDemandStatistics, _ rows: OnDemandSnapshot.KeptRows?,
                         generation: Int) {
        let kept: Bool = pool.withLock {
            finished.add(statistics)
            defer { pool.signal() }
            // The latest commit's rows win (snapshots of older ones may end later).
            if let rows, generation == self.generation, rows.commit >= self.kept?.rows.commit ?? .min,
               rows.cache.rows > 0 || !rows.counts.isEmpty {
                self.kept = (rows, generation)
            }
            guard !poolClosed, idle.count < Self.idleLimit, generation == self.generation else {
                openConnections -= 1
                return false
            }
            idle.append(connection)
            return true
        }
        if !kept { connection.close() }
    }

    /// What the current snapshot and the last one to end read, for a new snapshot on a
    /// connection of `generation` (which uses what saw the same commit). Called holding `lock`.
    private func keptRows(generation: Int) -> [OnDemandSnapshot.KeptRows] {
        let ended = pool.withLock { kept?.generation == generation ? kept?.rows : nil }
        // The current snapshot is of this generation: a discard forgets it.
        return [snapshot?.keptRows, ended].compactMap { $0 }
    }

    /// Opens the connections of later snapshots anew (``connect`` now opens them otherwise:
    /// over other packs): the idle ones are closed, the current snapshot is no longer handed
    /// out, and connections still held are closed when their snapshots end.
    func discardConnections() {
        closeIdle {
            generation += 1
            kept = nil
        }
        lock.withLock { snapshot = nil }
    }

    /// How many connections the snapshots hold or keep idle.
    var connectionCount: Int { pool.withLock { openConnections } }

    /// What the snapshots taken so far did.
    var statistics: OnDemandStatistics {
        let live = lock.withLock { snapshot }
        var total = pool.withLock { finished }
        if let live { total.add(live.statistics) }
        total.add(writes.statistics)
        return total
    }

    /// The SQL the current snapshot runs first for `list`, with SQLite's plan for it.
    func sql<Entity: EntityModelProtocol>(for list: QueryList<Entity>) -> (text: String, plan: [String])? {
        guard let snapshot = lock.withLock({ try? current() }) else { return nil }
        return snapshot.sql(for: list)
    }
}

extension OnDemandStatistics {
    mutating func add(_ other: OnDemandStatistics) {
        materializations += other.materializations
        statements += other.statements
        counts += other.counts
        wholeGraphReads += other.wholeGraphReads
        roundTrips += other.roundTrips
        fullTextReads += other.fullTextReads
        writes += other.writes
        writeStatements += other.writeStatements
        writeReads += other.writeReads
        writesAssumingNew += other.writesAssumingNew
        writesAssumingNewRetried += other.writesAssumingNewRetried
        writesReadingUnlocked += other.writesReadingUnlocked
        writesReadingUnlockedRetried += other.writesReadingUnlockedRetried
    }
}
