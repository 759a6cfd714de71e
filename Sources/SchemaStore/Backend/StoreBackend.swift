import Foundation
import SchemaRuntime

/// Where a ``Store`` keeps its graph durably. The store works in tables, rows and links (its
/// ``StoreLayout``); a backend turns them into its database's statements. SQLite is the one
/// backend today (``SQLiteBackend``); a server database would be another.
///
/// A backend is used by one writer at a time: the store calls it only while holding its
/// write lock, or before the store is shared.
protocol StoreBackend: AnyObject, Sendable {
    /// The file or address, for error messages.
    var location: String { get }

    /// Prepares the storage for `layout`: creates the tables of a new store; migrates one
    /// written with an older schema (returning the plan it applied), in one transaction;
    /// refuses one it must not open (see ``OpenDecision``), leaving it untouched.
    func open(_ layout: StoreLayout, migrations: [Migration], policy: Store.MigrationPolicy) throws -> MigrationPlan?

    /// Every row of an entity table, columns in layout order.
    func loadRows(_ entity: any AnyEntityPersister, _ body: ([StoredValue]) throws -> Void) throws

    /// Every link of a link table, grouped by owner, each owner's targets in order.
    func loadLinks(_ link: LinkLayout, _ body: (_ owner: StoredValue, _ targets: [StoredValue]) throws -> Void) throws

    /// Every record of the user's edits of pack entities (none in a store never opened with
    /// packs).
    func loadOverlay(_ body: (OverlayRecord) throws -> Void) throws

    /// Every soft-deleted archive: the archived entity's name and the archive as JSON (none in
    /// a store that never archived).
    func loadArchives(_ body: (_ name: String, _ json: Data) throws -> Void) throws

    /// Runs `body` in one transaction: all of its writes are kept, or none. The transaction
    /// holds the database's write lock from its start, so reads inside it see the latest
    /// committed state and no other connection commits before it ends.
    func transaction(_ body: (any StoreTransaction) throws -> Void) throws

    /// Runs `body`, which only writes, in one transaction that commits only if the last
    /// commit in the ``CommitLog`` is still `commit` once it holds the write lock: a store
    /// whose graph is that commit's writes without first reading what others committed.
    /// Throws ``StaleWrite`` (nothing written) when another commit came first; nil when the
    /// database cannot do this (a file: its reads cost no round trip, so a write reads first).
    func transaction(expectingLastCommit commit: Int64, _ body: (any StoreTransaction) throws -> Void) throws -> Void?

    /// Runs `body` in one write transaction whose commit the database numbers as it runs
    /// (``StoreTransaction/appendCommit(_:)`` returns nil): a write that reads nothing before
    /// its commit need not know the last commit, so another store's commit before it does
    /// not refuse it. Nil when the database cannot do this (a file).
    func transactionNumberedOnServer(_ body: (any StoreTransaction) throws -> Void) throws -> Void?

    /// Runs `body` in one write transaction whose reads go before it holds the write lock:
    /// other writes commit meanwhile, and this one commits only if none of them changed what
    /// it read (`reads()`, asked when it takes the lock), numbered as
    /// ``transactionNumberedOnServer(_:)`` numbers it. Throws ``ReadsChanged`` (nothing
    /// written) when one did, also when `body` threw on reads that changed. Nil when the
    /// database cannot do this (a file: its writes read under the lock at no cost).
    func transactionValidatingReads(_ reads: @escaping () -> WriteReadSet, _ body: (any StoreTransaction) throws -> Void) throws -> Void?

    /// Runs `body`, which only reads, in one read transaction: every read sees the same
    /// committed state, whatever other connections commit meanwhile. Inside ``transaction(_:)``
    /// it joins that transaction.
    func readTransaction<Result>(_ body: () throws -> Result) throws -> Result

    /// Until called again with nil: a write that commits also begins the next
    /// ``readTransaction(_:)`` and reads the log after `commit` in it (``commits(after:)``
    /// answers from that read), where the database can do that in the write's own round
    /// trip: for following the log right after a write, one round trip fewer. A read
    /// transaction begun so and not used ends with the next other use of the database.
    func readLogWithCommits(after commit: Int64?)

    /// A value that changes whenever another connection (of this process or another) commits
    /// to the database, and never for this connection's own commits; nil when no other
    /// connection can open it (an in-memory database). O(1).
    func externalCommitCounter() throws -> Int64?

    /// Makes the connection listen for the notifications writers send when they commit,
    /// from now on and on every connection that replaces it (PostgreSQL's `LISTEN`); returns
    /// false for a database that cannot tell (it is only polled). Its own commits are
    /// notified too, with no wake-up of another connection. A connection that fails to
    /// listen is replaced at the next statement, by one that does. Called holding the write
    /// lock, or while the store opens.
    func listenForCommits() -> Bool

    /// The notifications received since last asked (those read with statements' answers,
    /// and with `readingSocket`, those the server sent to the idle connection), and the
    /// socket to wait on for more; nil when the connection does not listen. Called holding
    /// the write lock; never opens a connection.
    func receivedCommits(readingSocket: Bool) throws -> ReceivedCommits?

    /// Whether ``externalCommitCounter()`` also changes with this connection's own commits
    /// (it is then the last commit's number, which the store records after its own).
    var countsOwnCommits: Bool { get }

    /// Whether the backend's statements wait for a server's answers (a round trip, another
    /// process's lock, a flush), not only for the local disk: a store's async API then waits
    /// on its own threads (``BlockingWork``). False for a file, whose statements mostly use
    /// the calling thread's CPU: moving them would cost more than they wait.
    var waitsForAServer: Bool { get }

    /// Runs `body`, in which a write transaction that would wait for another connection's
    /// write (a file's lock another store holds) throws ``OtherWriterFirst`` at once, before
    /// anything is written, instead. A server's waits as ever. Called holding the write lock.
    func withoutWaitingForOtherWriters<Result>(_ body: () throws -> Result) rethrows -> Result

    /// Has `work` run on the thread of each round trip once it sent its statements, while
    /// it waits for the answers; returns false when the backend has no such wait (a file:
    /// its statements run on the calling thread) and never runs it. A store frees there
    /// the graph its last write replaced (``GraphRetirement``).
    func runWhileWaiting(_ work: @escaping @Sendable () -> Void) -> Bool

    /// The schema fingerprint the database records (another connection may have migrated it).
    func recordedFingerprint() throws -> String?

    /// The number of the last commit in the ``CommitLog`` (0 before the first; nil when the
    /// database keeps no log).
    func lastCommit() throws -> Int64?

    /// The log entries of the commits after `commit`, in commit order, each with its commit.
    func commits(after commit: Int64) throws -> [(commit: Int64, entry: CommitLog.Entry)]

    /// The stored columns of the row of `entity` with `id`, nil when there is none.
    func row(_ entity: any AnyEntityPersister, id: StoredValue) throws -> [StoredValue]?

    /// The targets of `owner` in a link table, in order.
    func targets(_ link: LinkLayout, owner: StoredValue) throws -> [StoredValue]

    /// ``row(_:id:)`` for several ids: the stored columns of each that has a row, by id.
    func rows(_ entity: any AnyEntityPersister, ids: [StoredValue]) throws -> [StoredValue: [StoredValue]]

    /// ``targets(_:owner:)`` for several owners: each owner's targets, in order (none for an
    /// owner without links).
    func targets(_ link: LinkLayout, owners: [StoredValue]) throws -> [StoredValue: [StoredValue]]

    /// The last `count` targets of each owner in a to-many link table, in order: the links
    /// a commit appended (``CommitLog/Entry/appendedCount``), read without the rest of a
    /// list that may be long. O(count × log n) per owner.
    func lastTargets(_ link: LinkLayout, owners: [(owner: StoredValue, count: Int)]) throws -> [StoredValue: [StoredValue]]

    /// The rows and links of several tables (``BatchedRead``); a server's in one round trip.
    func read(_ request: BatchedRead) throws -> BatchedRead.Answer

    /// ``externalCommitCounter()`` and ``recordedFingerprint()`` in one read, for a database
    /// where each read is a round trip; nil where they are read apart (a file). With
    /// `commit`, outside a transaction, it also begins the next ``readTransaction(_:)`` and
    /// reads the log after `commit` there, in the same round trip (as
    /// ``readLogWithCommits(after:)``), unless that log is empty; ``discardLogReadAhead()``
    /// ends that transaction when the caller does not read after all.
    func externalCommitCounterAndFingerprint(readingLogAfter commit: Int64?) throws -> (counter: Int64?, fingerprint: String?)?

    /// Ends a read transaction begun ahead with a read of the log (``readLogWithCommits(after:)``,
    /// ``externalCommitCounterAndFingerprint(readingLogAfter:)``) that no ``readTransaction(_:)``
    /// joined; nothing otherwise.
    func discardLogReadAhead()

    /// The soft-deleted archive of `id` of entity `name` as JSON, nil when there is none.
    func archive(name: String, id: StoredValue) throws -> Data?

    /// Releases the storage. Further calls fail.
    func close()
}

/// The writes of one backend transaction.
protocol StoreTransaction {
    /// Writes the row `values` (the id first). `isNew`: no row has its id (the entity had
    /// none before this write), so an insert without a conflict clause serves, which a
    /// server takes faster in bulk.
    func upsertRow(_ entity: any AnyEntityPersister, _ values: [StoredValue], isNew: Bool) throws
    func deleteRow(_ entity: any AnyEntityPersister, id: StoredValue) throws
    /// Sets the to-one link of `owner` (replacing any). `isNew`: `owner` has no link there
    /// (it had no row before this write, or its link was just removed), so nothing is replaced.
    func setLink(_ link: LinkLayout, owner: StoredValue, target: StoredValue, isNew: Bool) throws
    /// Removes every link of `owner`.
    func removeLinks(_ link: LinkLayout, owner: StoredValue) throws
    /// Removes one to-many link.
    func removeLink(_ link: LinkLayout, owner: StoredValue, target: StoredValue) throws
    /// Appends to-many links after the owner's last one, in order. `afterRemovingAll`: this
    /// transaction removed every link of `owner` just before (``removeLinks(_:owner:)``), so
    /// positions start at 0 without looking for the last one.
    func appendLinks(_ link: LinkLayout, owner: StoredValue, targets: [StoredValue], afterRemovingAll: Bool) throws
    /// Adds `record`, replacing one of the same kind, name and id.
    func addOverlay(_ record: OverlayRecord) throws
    /// Removes the record of this kind, name and id, if any.
    func removeOverlay(_ kind: OverlayRecord.Kind, name: String, id: StoredValue) throws
    /// Whether a record of this kind, name and id exists; false where the database does not
    /// say (then a write does what holds either way).
    func hasOverlay(_ kind: OverlayRecord.Kind, name: String, id: StoredValue) throws -> Bool
    /// Adds or replaces the archive of `id` of entity `name`.
    func upsertArchive(name: String, id: StoredValue, json: Data) throws
    /// Removes the archive of `id` of entity `name`, if any.
    func removeArchive(name: String, id: StoredValue) throws
    /// Records the commit's changes in the ``CommitLog`` under the next commit number, which
    /// it returns (nil when the server numbers the commit as it runs,
    /// ``StoreBackend/transactionNumberedOnServer(_:)``); forgets commits older than the log keeps.
    func appendCommit(_ entries: [CommitLog.Entry]) throws -> Int64?
    /// The full-text indexes (``FullTextLayout``) of the layout whose tables the file has.
    func fullTextIndexesPresent(_ layout: StoreLayout) throws -> Set<String>
    /// Keeps the full-text tables of `index` in step with row `id`: indexing `text`, or
    /// removing it for nil. Returns what the text adds to the totals; what the entity held
    /// before is taken from them when the change is written. Changes are written, with the
    /// totals, by ``addToFullTextTotals``, which a write calls once per index it changed.
    /// `isNew`: the entity had no row before this write, so it has no postings to remove.
    func updateFullText(_ index: FullTextLayout, id: StoredValue, text: String?, isNew: Bool) throws -> (documents: Int, length: Int)
    /// Writes the write's changes to `index` and adds `documents` and `length` to its totals.
    func addToFullTextTotals(_ index: FullTextLayout, documents: Int, length: Int) throws
}

extension StoreTransaction {
    func hasOverlay(_ kind: OverlayRecord.Kind, name: String, id: StoredValue) throws -> Bool { false }
}

/// A write that expected to follow a commit another write followed first: nothing was
/// written; the store catches up and runs the write again.
struct StaleWrite: Error {}

/// A write that read before it took the write lock found, under it, that another commit had
/// changed what it read (``StoreBackend/transactionValidatingReads(_:_:)``): nothing was
/// written; the store runs it again.
struct ReadsChanged: Error {}

/// A write on demand assumed that reads of what it touched would find nothing (new
/// entities), and one found rows: nothing was written; the store runs the write again,
/// reading what it touches first.
struct AssumedAbsentFound: Error {}

/// A write would have waited for another connection's (``StoreBackend/withoutWaitingForOtherWriters(_:)``):
/// nothing was written, and its closure did not run.
struct OtherWriterFirst: Error {}

/// A write found the schema fingerprint the database records changed to `recorded` (another
/// version of the app migrated it): nothing was written; the store fails it with
/// ``StoreError/schemaChangedElsewhere(path:)``.
struct FingerprintChanged: Error {
    let recorded: String?
}

extension StoreBackend {
    var countsOwnCommits: Bool { false }

    var waitsForAServer: Bool { false }

    func withoutWaitingForOtherWriters<Result>(_ body: () throws -> Result) rethrows -> Result { try body() }

    func runWhileWaiting(_ work: @escaping @Sendable () -> Void) -> Bool { false }

    func transaction(expectingLastCommit commit: Int64, _ body: (any StoreTransaction) throws -> Void) throws -> Void? { nil }

    func transactionNumberedOnServer(_ body: (any StoreTransaction) throws -> Void) throws -> Void? { nil }

    func transactionValidatingReads(_ reads: @escaping () -> WriteReadSet, _ body: (any StoreTransaction) throws -> Void) throws -> Void? { nil }

    /// One read per id: right where a read costs no round trip (SQLite).
    func rows(_ entity: any AnyEntityPersister, ids: [StoredValue]) throws -> [StoredValue: [StoredValue]] {
        var rows: [StoredValue: [StoredValue]] = [:]
        for id in ids { rows[id] = try row(entity, id: id) }
        return rows
    }

    func targets(_ link: LinkLayout, owners: [StoredValue]) throws -> [StoredValue: [StoredValue]] {
        var targets: [StoredValue: [StoredValue]] = [:]
        for owner in owners { targets[owner] = try self.targets(link, owner: owner) }
        return targets
    }

    func listenForCommits() -> Bool { false }

    /// Nothing read ahead: the read transaction reads the log when asked.
    func readLogWithCommits(after commit: Int64?) {}

    func receivedCommits(readingSocket: Bool) throws -> ReceivedCommits? { nil }

    func externalCommitCounterAndFingerprint(readingLogAfter commit: Int64?) throws -> (counter: Int64?, fingerprint: String?)? { nil }

    func discardLogReadAhead() {}

    /// Runs `body`, which reads stored rows or links of `name` into a graph, reporting a value
    /// that cannot be read, or a unique-index collision among loaded rows, as
    /// ``StoreError/unreadableRow(path:entity:reason:)`` of this backend (`note` added).
    func reading<Result>(_ name: String, note: String = "", _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as StoredValueError {
            throw StoreError.unreadableRow(path: location, entity: name, reason: "\(error)" + note)
        } catch let error as UniqueConstraintViolation {
            throw StoreError.unreadableRow(path: location, entity: name, reason: "\(error)" + note)
        }
    }
}
