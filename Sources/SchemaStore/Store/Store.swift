import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// A model graph kept in a file: snapshot reads, serialized write transactions, durable commits.
///
/// ```swift
/// let store = try Store(.file(url), schema: ChatModelsSchema.self)
/// try store.write { context in
///     try Message(id: "1", text: "Hi", author: .id("u1"), chat: .id("c1")).save(to: &context)
/// }
/// let messages = Message.query().resolve(in: store.context)
/// ```
///
/// - Reads: ``context`` returns the current graph as a ``Context`` value in O(1). It never
///   changes under the reader; later writes produce new graphs. A file store reads on demand
///   by default (``Residency/onDemand``): the context is a snapshot of the file, and each
///   query reads what it needs through SQL.
/// - Writes: ``write(_:)`` runs its closure on the latest graph in one transaction. When the
///   closure returns, its changes are committed to the file in one SQLite transaction and
///   become the current graph. If the closure or the commit throws, neither the file nor the
///   current graph changes. Writers are serialized; readers never wait for them. On demand,
///   the closure's context reads the stored rows and links its saves and deletes touch.
/// - Durability: a committed write survives the process being killed at any moment (WAL
///   journal); ``Durability/full`` also survives power loss, at an fsync per commit.
/// - Sharing: several stores may open one file, in this process or others (an app and its
///   widget). They write one at a time; each write first loads what the others committed,
///   so none is lost, and each store notices the others' commits within
///   ``externalCommitCheckInterval``, loads them and tells its observers.
///
/// Opening a resident store loads the whole graph and rebuilds the in-memory indexes; opening
/// on demand reads the file's metadata only (see docs/Persistence.md, "Resident or on demand").
public final class Store: @unchecked Sendable {
    /// Where the graph is kept.
    public enum Location: Sendable, Hashable {
        /// A database file, created if missing. Its folder must be writable (SQLite keeps a
        /// write-ahead log beside it).
        case file(URL)
        /// Nowhere: the graph lives in memory only, with no database at all (tests, previews).
        case memory
        /// An in-memory SQLite database: gone on close, but every commit runs the same SQL as
        /// a file store.
        case sqliteMemory
        /// A database server, shared by every store on it, in any process on any machine:
        /// `.postgres(configuration)` from `SchemaStorePostgres` (docs/PostgreSQL.md).
        case server(ServerLocation)
    }

    /// How hard a commit works to survive failures, for a store on a file. On a server the
    /// server's settings decide (PostgreSQL's `synchronous_commit`): a write returns once
    /// its commit is as durable as they make it, and ``CommitVisibility`` says whether
    /// other stores may see it before.
    public enum Durability: Sendable, Hashable {
        /// Survives the process being killed (WAL, `synchronous = NORMAL`); a power loss may
        /// lose the last commits, never corrupt the file.
        case normal
        /// Also survives power loss: an fsync per commit (`synchronous = FULL`).
        case full
    }

    /// What opening does with a file written with an older schema (docs/Persistence.md,
    /// "Changing your schema").
    public enum MigrationPolicy: Sendable, Hashable {
        /// Applies the plan, including the deletions it lists (removed entities, fields and
        /// relations): the schema file says they are gone. ``Store/appliedMigration`` holds it.
        case automatic
        /// Applies a plan only if it deletes nothing; otherwise throws
        /// ``StoreError/migrationRefused(path:reason:plan:)`` listing what it would delete.
        case keepEverything
        /// Never migrates: a file written with another schema is refused.
        case never
    }

    /// Where a store's queries run (docs/Persistence.md, "Resident or on demand").
    public enum Residency: Sendable, Hashable {
        /// The whole graph in memory, loaded at open and kept up to date: every query runs
        /// in memory. Opening and memory grow with the stored rows; for small stores and tests.
        /// The default for stores on a server.
        case resident
        /// The database answers the queries (the default for file stores): opening reads only
        /// the metadata, each ``Store/context`` is a snapshot of the database read through SQL,
        /// and memory holds what queries read. A write's closure runs on a context that reads
        /// the rows and links its saves, deletes and queries touch. Observers learn of commits
        /// from the database's log.
        ///
        /// On a server, read with ``Store/read(_:)``, which throws when the server fails
        /// mid-read: a context taken from ``Store/context`` reads lazily and its queries cannot
        /// throw, so a server failing under one stops the process, unless
        /// ``Options/contextReadFailure`` says to answer empty and report (docs/PostgreSQL.md).
        case onDemand
    }

    /// For a store on a server: when other stores may see a write's commit, which decides
    /// whether the commits of several stores writing one database can be flushed to disk
    /// together (docs/PostgreSQL.md, "Durable servers").
    public enum CommitVisibility: Sendable, Hashable {
        /// Once the server has flushed it to disk (the default). Writers of one database
        /// hold its write lock until their commit is flushed, so their commits are flushed
        /// one at a time: about one write per flush of the server's log, however many
        /// processes write.
        case afterFlush
        /// As soon as it is made: the write lock is released before the flush, and the
        /// commits of several writers are flushed together. A write still returns only once
        /// its commit is on disk, and a commit read by a write is flushed before that write
        /// returns. But a reader in another store may see a commit that a crash of the
        /// server (not a clean restart) then loses. The stores find out (after the crash,
        /// the commits are numbered past the lost ones, and the log shows the gap) and read
        /// the database again: a resident graph is loaded anew, and observers learn what
        /// changed.
        case beforeFlush
    }

    public struct Options: Sendable {
        public var durability: Durability
        /// For a store on a server: when other stores may see its commits
        /// (``CommitVisibility``; ignored by a file, where SQLite decides).
        public var commitVisibility: CommitVisibility
        /// How long opening and each write wait for another store writing the same file or
        /// database (in this process or another) before failing with ``StoreError/locked(path:)``.
        public var lockTimeout: TimeInterval
        public var migration: MigrationPolicy
        /// Opens the file without writing to it (or locking it): writes throw
        /// ``StoreError/readOnly(path:)``. A file written by a newer schema opens this way when
        /// the part this code knows is intact; one needing a migration does not.
        public var readOnly: Bool
        /// Where queries run, for a store on a file or a server (in memory, and on a server
        /// over packs, a store is resident). Nil (the default) is the location's default: on
        /// demand for a file (over packs too, up to ``Store/maximumPacksOnDemand`` of them;
        /// resident over more), resident for a server.
        public var residency: Residency?
        /// For a store on a server reading on demand: the most connections its snapshots hold
        /// at once (each ``Store/read(_:)`` takes one for its duration, and contexts taken
        /// between two commits share one). A `read` finding them all in use waits up to
        /// ``lockTimeout`` for one, then throws ``StoreError/database(path:reason:)``. Besides
        /// these, a store keeps a connection for its writes and one that listens for commits.
        public var maximumReadConnections: Int
        /// For a store reading on demand: how many rows one snapshot keeps from a query for the
        /// next ones on it, which then read only what they lack (a snapshot never changes, so
        /// they stay right). The contexts taken between two commits share a snapshot. A new
        /// snapshot (a `read`, or a context after the last one went) of the same commit
        /// starts from the rows the current or the last snapshot read; after a commit, from
        /// none. The store holds the last snapshot's rows until the next one replaces them.
        /// 0 keeps none. (The answers of `count()` queries are kept the same way, whatever
        /// this number: a count asked again at the same commit is not counted again.)
        public var cachedRowsPerSnapshot: Int
        /// For a store reading on demand: what a context from ``Store/context`` does when a
        /// read it needs fails (``ContextReadFailure``; by default, stops the process).
        public var contextReadFailure: ContextReadFailure

        public init(durability: Durability = .normal, lockTimeout: TimeInterval = 5, migration: MigrationPolicy = .automatic,
                    readOnly: Bool = false, residency: Residency? = nil, maximumReadConnections: Int = 8, cachedRowsPerSnapshot: Int = 50_000,
                    contextReadFailure: ContextReadFailure = .stopProcess, commitVisibility: CommitVisibility = .afterFlush) {
            self.durability = durability
            self.commitVisibility = commitVisibility
            self.lockTimeout = lockTimeout
            self.migration = migration
            self.readOnly = readOnly
            self.residency = residency
            self.maximumReadConnections = maximumReadConnections
            self.cachedRowsPerSnapshot = cachedRowsPerSnapshot
            self.contextReadFailure = contextReadFailure
        }

        /// Where queries run for a store at `location` over `packs` installed packs (nil
        /// without a packs directory): resident in memory, else ``residency`` or the
        /// location's default.
        func residency(at location: Location, packs: Int? = nil) -> Residency {
            switch location {
            case .memory, .sqliteMemory:
                return .resident
            case .server:
                // Packs are SQLite files: a server's store reads them resident.
                return packs == nil ? residency ?? .resident : .resident
            case .file:
                // SQLite attaches a limited number of files to a connection (PackUnion).
                return residency ?? ((packs ?? 0) > SQLiteBackend.attachLimit ? .resident : .onDemand)
            }
        }
    }

    public let location: Location
    /// The migration applied when the store opened, if the file was written with an older
    /// schema: what changed, including anything deleted.
    public let appliedMigration: MigrationPlan?
    /// Whether writes are refused (``Options/readOnly``).
    public let isReadOnly: Bool
    let layout: StoreLayout
    let backend: (any StoreBackend)?
    /// The installed packs, for a store opened over a packs directory.
    let library: PackLibrary?
    /// Guards `current`; held only to read or swap it, so readers never wait for a write.
    let stateLock = NSLock()
    /// Serializes writers, and guards `isClosed`.
    let writeLock = NSLock()
    var current: Context
    /// The loaded packs, under `stateLock`; nil without a packs directory, or on demand.
    var layers: PackLayers?
    /// The packs a store reading on demand shows (``PackUnion``); nil otherwise.
    var unionPacks: CurrentPackUnion?
    var isClosed = false
    /// Writes on a server that found another commit first and ran again; under `writeLock`.
    var optimisticRetries = 0
    /// The thread running a write's closure, guarded by `stateLock`.
    private var writingThread: Thread?
    /// Async writes that found another store writing to the file, and so waited for it
    /// where they hold no thread Swift runs tasks on; under `stateLock`.
    private var writesBehindOtherWriters = 0
    /// How many async writes found another store writing to the file (tests wait for them).
    var asyncWritesBehindOtherWriters: Int { stateLock.withLock { writesBehindOtherWriters } }
    /// Queues async writers, so they wait for each other without blocking threads; only a
    /// concurrent synchronous writer can make one wait on `writeLock`.
    private let asyncWriters = WriterQueue()
    /// Who follows the commits (``changes()``, ``observe(_:)``).
    let observers = ObserverRegistry()
    /// Frees the graph a small write replaced while the next round trip waits for the
    /// server; nil when the backend has no such wait (a file, memory).
    let retirement: GraphRetirement?
    /// The graph the running write replaced, handed to `retirement` once the write
    /// returned (``retire(_:rows:)``); under `writeLock`.
    private var replacedGraph: Context?
    /// Following other stores' commits to the same file (``SharedFile``); nil for a store
    /// no other connection can open.
    var sharing: SharedFile?
    /// For a store opened ``Residency/onDemand``: its SQL snapshots. Nil for a resident store.
    let onDemand: OnDemandReading?
    /// Whether `current` holds the whole graph (a resident store); false for a store reading
    /// on demand, whose `current` stays empty.
    let isResident: Bool
    /// For a resident store on a server: how its writes run again reading the database when
    /// another store committed first. Nil otherwise.
    let staleWriteReading: StaleWriteReading?

    /// Opens the store at `location` for `schema`, loading its graph. A file written with an
    /// older schema is migrated first, in one transaction (see ``MigrationPolicy``);
    /// `migrations` compute the changes a store cannot infer.
    ///
    /// Throws ``StoreError`` for a file that cannot be opened or created, one in use by
    /// another store, a damaged file, one written by a newer schema, and one whose migration
    /// is not possible or fails; the file is left untouched in every case.
    public convenience init(_ location: Location, schema: any PersistentSchema.Type, migrations: [Migration] = [], options: Options = Options()) throws {
        try self.init(location, schema: schema, packsDirectory: nil, migrations: migrations, options: options)
    }

    /// Opens the store at `location` over the content packs installed in `packs` (created if
    /// missing): reads see the union, writes go to the user store only, and edits of pack
    /// entities become overrides and tombstones there (docs/Packs.md). Also throws
    /// ``PackError`` for an installed pack that cannot be read.
    public convenience init(_ location: Location, schema: any PersistentSchema.Type, packs: URL, migrations: [Migration] = [],
                            options: Options = Options()) throws {
        try self.init(location, schema: schema, packsDirectory: packs, migrations: migrations, options: options)
    }

    private init(_ location: Location, schema: any PersistentSchema.Type, packsDirectory: URL?, migrations: [Migration], options: Options) throws {
        let layout = StoreLayout(schema)
        for migration in migrations {
            if let mismatch = migration.mismatch(in: layout.shape) { throw StoreError.invalidMigration(reason: mismatch) }
        }
        let library = try packsDirectory.map { try PackLibrary(directory: $0, schema: schema) }
        let installed = try library?.installed ?? []
        let residency = options.residency(at: location, packs: library == nil ? nil : installed.count)
        let backend = try Self.backend(for: location, options: options, residency: residency)
        let readsOnDemand = residency == .onDemand
        var onDemand: OnDemandReading?
        do {
            appliedMigration = try backend?.open(layout, migrations: migrations, policy: options.migration)
            // Read before loading: a commit made while loading is then loaded again later.
            let sharing = try backend.flatMap { try SharedFile(backend: $0) }
            // On demand over packs, every connection shows the packs' union (PackUnion).
            let union = library != nil && readsOnDemand ? try Self.packUnion(installed, layout: layout) : nil
            if let union, let file = backend as? SQLiteBackend {
                if !options.readOnly { try file.createOverlayTable() }
                try file.attach(union)
                // Edits of packs since removed or updated: ignored by the unions, deleted here.
                if !options.readOnly { Self.deleteStale(try file.staleOverlayRecords(), layout: layout, backend: file) }
            }
            let currentUnion = union.map(CurrentPackUnion.init)
            let onDemandConnect = readsOnDemand ? Self.snapshotConnections(location, options: options, union: currentUnion) : nil
            if onDemandConnect != nil { self.unionPacks = currentUnion }
            if library != nil, onDemandConnect == nil {
                let (layers, graph) = try Self.readingLayers(path: backend?.location) {
                    let layers = try PackLayers.load(installed, layout: layout)
                    return (layers, try Self.loadUnified(layers, layout: layout, backend: backend))
                }
                if !options.readOnly { Self.deleteStale(graph.stale, layout: layout, backend: backend) }
                current = graph.context
                self.layers = layers
            } else if let onDemandConnect, let backend {
                // Nothing read: queries read through SQL snapshots (OnDemandReading).
                current = Context()
                var connectionLimit: Int?
                if case .server = location { connectionLimit = options.maximumReadConnections }
                // Over packs, the connection watching for commits attaches none.
                let probe = union == nil ? nil : Self.snapshotConnections(location, options: options, union: nil)
                onDemand = try OnDemandReading(path: backend.location, layout: layout, connectionLimit: connectionLimit,
                                               connectionWait: options.lockTimeout, cachedRows: options.cachedRowsPerSnapshot,
                                               reportFailure: options.contextReadFailure.report, probe: probe, connect: onDemandConnect)
            } else {
                current = try backend.map { try Self.loadGraph(layout: layout, backend: $0) } ?? Context()
            }
            self.sharing = sharing
        } catch {
            backend?.close()
            throw error
        }
        self.location = location
        self.layout = layout
        self.backend = backend
        self.library = library
        self.isReadOnly = options.readOnly
        self.onDemand = onDemand
        isResident = onDemand == nil
        if isResident, !options.readOnly, case .server = location, let connect = Self.snapshotConnections(location, options: options, union: nil) {
            staleWriteReading = StaleWriteReading(links: LinkLookup(layout), connect: connect)
        } else {
            staleWriteReading = nil
        }
        // Only a backend that waits for a server's answers frees replaced graphs there.
        let retirement = GraphRetirement()
        if let backend, !options.readOnly, backend.runWhileWaiting({ retirement.releaseKept() }) {
            self.retirement = retirement
        } else {
            self.retirement = nil
        }
        if isResident { startFollowingOtherStores() }
    }

    /// Opens the read-only connections an on-demand store takes its snapshots on; nil where
    /// a store is resident whatever the options (in memory).
    private static func snapshotConnections(_ location: Location, options: Options, union: CurrentPackUnion?) -> (() throws -> any SnapshotConnection)? {
        switch location {
        case .memory, .sqliteMemory:
            return nil
        case .file(let url):
            let lockTimeout = options.lockTimeout
            return {
                let connection = try SQLiteBackend(path: url.path, durability: .normal, lockTimeout: lockTimeout, readOnly: true)
                guard let union else { return connection }
                do {
                    try connection.attach(union.union)
                } catch {
                    connection.close()
                    throw error
                }
                return connection
            }
        case .server(let server):
            return { try PostgreSQLBackend(server, readOnly: true, lockTimeout: options.lockTimeout) }
        }
    }

    private static func backend(for location: Location, options: Options, residency: Residency) throws -> (any StoreBackend)? {
        switch location {
        case .memory: nil
        case .sqliteMemory: try SQLiteBackend(path: ":memory:", durability: options.durability, lockTimeout: options.lockTimeout)
        case .file(let url):
            try SQLiteBackend(path: url.path, durability: options.durability, lockTimeout: options.lockTimeout, readOnly: options.readOnly,
                              createsSQLIndexes: residency == .onDemand)
        case .server(let server):
            try PostgreSQLBackend(server, readOnly: options.readOnly, lockTimeout: options.lockTimeout,
                                  commitsBeforeFlush: options.commitVisibility == .beforeFlush)
        }
    }

    /// The migration opening the file at `url` with `schema` would apply, without changing
    /// the file. Nil when opening would migrate nothing: no file at `url` yet (opening
    /// creates it), or a file written with `schema` already. Throws what opening would throw
    /// for a file it must refuse (not a store, a newer schema, a change that needs a
    /// ``Migration``).
    public static func migrationPlan(at url: URL, schema: any PersistentSchema.Type, migrations: [Migration] = []) throws -> MigrationPlan? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let backend = try SQLiteBackend(path: url.path, durability: .normal, lockTimeout: 0.1, readOnly: true)
        defer { backend.close() }
        return try backend.plan(for: StoreLayout(schema), migrations: migrations)
    }

    deinit {
        sharing?.stopPolling()
        // Before the writer's connection, as in `close()`: the last connection to close
        // checkpoints the log, which a read-only one cannot.
        onDemand?.close()
        backend?.close()
        observers.close()
    }

    /// The current graph: an O(1) snapshot that later writes never change.
    ///
    /// For a store opened ``Residency/onDemand``, a context reading the file through SQL as
    /// it was when taken (a read transaction, held until the last copy of the context is
    /// gone): it holds no rows, and each query reads what it needs.
    public var context: Context {
        if let onDemand, !isResident { return onDemand.context() }
        return stateLock.withLock { current }
    }

    /// Runs `body` on a snapshot of the store and returns what it returns; throws instead
    /// of answering wrongly when a read fails.
    ///
    /// A store reading on demand reads lazily, as queries run, and a query cannot throw:
    /// through ``context``, a read that fails (a file damaged under a held snapshot, a row
    /// that no longer decodes, a server gone) stops the process rather than answer wrongly,
    /// unless ``Options/contextReadFailure`` says to answer empty and report. Inside `read`,
    /// the snapshot is the scope's own: such a failure is kept, and `read` throws it when
    /// `body` returns, whatever `body` computed. Throws at once when the store cannot be
    /// read now. A resident store's reads cannot fail: `body` runs on ``context``.
    ///
    /// ```swift
    /// let recent = try store.read { context in
    ///     Message.query(in: context).sorted(by: \.timestamp.desc).limit(20).resolve()
    /// }
    /// ```
    public func read<Result>(_ body: (Context) throws -> Result) throws -> Result {
        try readBlocking(body)
    }

    /// ``read(_:)`` from any task. On a server, reading on demand, called from code isolated
    /// to no actor: `body` and the reads its queries make run on a thread of the store's own
    /// while the task waits suspended (``BlockingWork``), so that the server's round trips
    /// hold none of the threads Swift runs tasks on. In place otherwise: from an actor, on a
    /// resident store (whose reads are in memory), on a file. In async code the compiler
    /// picks this one: there, read a server on demand through it rather than through
    /// ``context``, whose queries wait for the server on the thread they run on.
    nonisolated(nonsending) public func read<Result>(_ body: (Context) throws -> Result) async throws -> Result {
        guard readsOnDemand, waitsForAServer else { return try readBlocking(body) }
        return try await BlockingWork.run { try readBlocking(body) }
    }

    /// Whether the store's statements wait for a server (``StoreBackend/waitsForAServer``).
    var waitsForAServer: Bool { backend?.waitsForAServer ?? false }

    private func readBlocking<Result>(_ body: (Context) throws -> Result) throws -> Result {
        guard let onDemand, !isResident else { return try body(context) }
        let failures = ReadFailures()
        let context: Context
        do {
            context = try onDemand.context(reportingTo: failures)
        } catch {
            _ = failures.close()
            throw error
        }
        let result: Result
        do {
            result = try body(context)
        } catch {
            _ = failures.close()
            throw error
        }
        if let failure = failures.close() { throw failure }
        return result
    }

    /// Runs `body` on the latest graph and commits its changes: to the file in one
    /// transaction, then as the new current graph. If `body` or the commit throws, nothing
    /// changes. Blocks while another write runs.
    ///
    /// On a server (resident), `body` first runs on the graph as of the last commit this
    /// store heard of, and the commit goes in one round trip if no other store committed
    /// first; if one did, `body` runs again as on a store reading on demand (below), on a
    /// context that reads the database, and then on the latest graph if what it read kept
    /// changing; the graph then holds the commit. While other stores commit first to most
    /// of its runs on the graph, a write starts on the database, trying the graph again
    /// now and then. On a server reading on
    /// demand, `body` may first run taking the entities it loads for new (``WriteAttemptPolicy``),
    /// and once more, reading them, if they were not; it reads before it takes the
    /// database's write lock, and runs again when another store's commit changed what it
    /// read meanwhile (up to ``unlockedAttempts`` times, then once more under the lock). So
    /// it may run several times: keep it free of effects outside the context.
    @discardableResult
    public func write<Result>(_ body: (inout Context) throws -> Result) throws -> Result {
        try writeBlocking(body)
    }

    /// `waitingForOtherWriters` false: throws ``OtherWriterFirst`` where the write would wait
    /// for another connection's (a file's lock), before its closure runs.
    private func writeBlocking<Result>(_ body: (inout Context) throws -> Result, waitingForOtherWriters: Bool = true) throws -> Result {
        try exclusively(waitingForOtherWriters: waitingForOtherWriters) {
            guard let backend else {
                let commit = try run(body, transaction: nil)
                return finish(commit)
            }
            var commit: Commit<Result>?
            if let onDemand, let file = backend as? any SnapshotConnection, readsOnDemand {
                // On demand: the closure reads the file through the transaction. On a server,
                // first as if what it loads were new (nothing read), then before the write
                // lock (what it read checked under it); last, and on a file, under the lock
                // from the start, so that no other store changes the file until it ends.
                do {
                    commit = try writeOnDemandAssumingNew(body, file: file, reading: onDemand)
                    if commit == nil { commit = try writeOnDemandReadingUnlocked(body, file: file, reading: onDemand) }
                    if commit == nil {
                        try backend.transaction { transaction in
                            let reading = OnDemandWrite(layout: layout, links: onDemand.links, backend: file, connect: onDemand.connect)
                            commit = try runOnDemand(body, transaction: transaction, file: file, onDemand: onDemand, reading: reading)
                        }
                    }
                } catch let changed as FingerprintChanged {
                    if let sharing { try checkSchemaUnchanged(sharing: sharing, recorded: changed.recorded, path: file.location) }
                    throw changed
                }
                // Observers (this store's own included) learn of commits from the file's log.
                try? deliverOnDemandCommits()
                retire(commit!.before, rows: commit!.changes.rowCount)
                return commit!.result
            }
            // On a server, first in one round trip: the closure runs on the graph as of the
            // last commit this store heard of, and the write commits only if no other came
            // first. If one did, the write runs again reading what it touches from the
            // database before the write lock, and commits if no commit changed that meanwhile;
            // last, as below, under the lock on the latest graph (retrying on the whole graph
            // again would only lengthen the tail under contention: any commit makes it stale).
            if let sharing, isResident {
                // While other stores commit between most of this store's writes, the run on
                // the graph is mostly wasted: the write then starts reading the database.
                let stale = staleWriteReadingApplies ? staleWriteReading : nil
                if stale?.runsOnGraphFirst() ?? true {
                    let expected = sharing.seenCommit
                    do {
                        if try backend.transaction(expectingLastCommit: expected, { commit = try run(body, transaction: $0) }) != nil {
                            stale?.recordRunOnGraph(held: true)
                            return finish(commit!)
                        }
                    } catch is StaleWrite {
                        optimisticRetries += 1
                        stale?.recordRunOnGraph(held: false)
                    } catch {
                        // The closure may have thrown on a graph behind other stores' commits (a
                        // unique key another store has since freed): thrown only if it was the
                        // latest, else run again below.
                        try catchUpWithOtherStores()
                        guard sharing.seenCommit != expected else { throw error }
                        optimisticRetries += 1
                        stale?.recordRunOnGraph(held: false)
                    }
                }
                if let result = try writeStaleReadingTheDatabase(body) { return result }
            }
            // The closure runs inside the database transaction, on the latest committed
            // graph: what other stores committed before is loaded first, and none can commit
            // until this one ends.
            try backend.transaction { transaction in
                try catchUpWithOtherStores()
                commit = try run(body, transaction: transaction)
            }
            return finish(commit!)
        }
    }

    /// A write's outcome, made current once its transaction committed.
    private struct Commit<Result> {
        let result: Result
        let before: Context
        let after: Context
        let changes: ChangeSet
        /// What it changed, when the commit log needed it (observers reuse it).
        var description: CommitDescription? = nil
        /// Its number in the ``CommitLog`` of a shared file.
        var number: Int64?
    }

    /// The rows a write changes from which its commit is described on another thread
    /// (``BackgroundResult``): below, the hop costs more than it saves.
    static let describedAside = 10_000

    /// Runs `body` on the current graph and writes its changes in `transaction`.
    private func run<Result>(_ body: (inout Context) throws -> Result, transaction: (any StoreTransaction)?) throws -> Commit<Result> {
        let before = self.context
        var context = before
        let (result, changes) = try context.trackingChanges(body)
        if !changes.isEmpty {
            // With or without a database, only the schema's entities can be kept.
            try ChangeWriter.checkEntities(changes, layout: layout, context: context)
            let layers = stateLock.withLock { self.layers }
            var number: Int64?
            var description: CommitDescription?
            if let transaction {
                // Other stores on the file load what this commit changed from its log, and
                // their observers learn what it did from it. A big write describes it on
                // another thread while its rows are written (mostly a wait for a server).
                let after = context, layout = self.layout
                let describing = sharing != nil && changes.rowCount >= Self.describedAside
                    ? BackgroundResult { try CommitDescription(changeSet: changes, before: before, after: after, layout: layout) } : nil
                // A resident graph holds every stored row: what it lacks is new.
                try ChangeWriter(layout: layout, context: context, transaction: transaction, layers: layers,
                                 newRows: isResident ? .absent(from: before) : nil).write(changes)
                if sharing != nil {
                    let described = try describing?.value() ?? CommitDescription(changeSet: changes, before: before, after: context, layout: layout)
                    number = try transaction.appendCommit(CommitLog.entries(of: changes, description: described, layout: layout, context: context))
                    description = described
                }
            }
            if let layers { ChangeWriter.markPackSources(changes, layout: layout, layers: layers, in: &context) }
            return Commit(result: result, before: before, after: context, changes: changes, description: description, number: number)
        }
        return Commit(result: result, before: before, after: context, changes: changes)
    }

    /// On a server, a write on demand that assumes the entities it loads are new
    /// (``WriteAttemptPolicy``): it reads nothing before its commit, whose statements check that
    /// they were; the server numbers the commit, so other stores' commits before it do not
    /// matter unless they made what it assumed missing. Nil when it did not commit that way
    /// (not assumed, or found otherwise, or the closure threw on what it assumed): nothing
    /// was written, and the write runs reading first.
    private func writeOnDemandAssumingNew<Result>(_ body: (inout Context) throws -> Result, file: any SnapshotConnection,
                                                  reading onDemand: any OnDemandWriting) throws -> Commit<Result>? {
        guard let backend, file.checksAssumedReads, onDemand.writes.assumeNew() else { return nil }
        var commit: Commit<Result>?
        let reading = OnDemandWrite(layout: layout, links: onDemand.links, backend: file, assumesNew: true, connect: onDemand.connect)
        do {
            guard try backend.transactionNumberedOnServer({ transaction in
                commit = try runOnDemand(body, transaction: transaction, file: file, onDemand: onDemand, reading: reading)
            }) != nil else { return nil }
        } catch is AssumedAbsentFound {
            onDemand.writes.recordAssumption(held: false)
            return nil
        } catch let error where reading.assumedNew > 0 && !(error is FingerprintChanged) {
            // Thrown on entities taken for new that may exist (by the closure, or by a
            // constraint of the database at the commit): the answer of the run that reads
            // them counts.
            onDemand.writes.recordAssumption(held: false)
            return nil
        }
        if reading.assumedNew > 0 { onDemand.writes.recordAssumption(held: true) }
        return commit
    }

    /// On a server, a write on demand that reads before it takes the write lock
    /// (``StoreBackend/transactionValidatingReads(_:_:)``): other stores commit while it reads
    /// and runs its closure, and it commits only if none of them changed what it read. When
    /// one did, nothing was written and it runs again, at most ``unlockedAttempts`` times in
    /// all (once to probe after a write whose runs all lost, none while the store backs off
    /// from a hot row: ``WriteAttemptPolicy``); nil then (it runs once more under the lock
    /// from the start, sure to commit), and where the database cannot do this.
    private func writeOnDemandReadingUnlocked<Result>(_ body: (inout Context) throws -> Result, file: any SnapshotConnection,
                                                      reading onDemand: any OnDemandWriting) throws -> Commit<Result>? {
        guard let backend, file.checksAssumedReads else { return nil }
        let runs = onDemand.writes.runsReadingUnlocked(Self.unlockedAttempts)
        for _ in 0..<runs {
            var commit: Commit<Result>?
            let reading = OnDemandWrite(layout: layout, links: onDemand.links, backend: file, recordsReads: true, connect: onDemand.connect)
            do {
                guard try backend.transactionValidatingReads({ reading.readSet }, { transaction in
                    commit = try runOnDemand(body, transaction: transaction, file: file, onDemand: onDemand, reading: reading)
                }) != nil else { return nil }
                onDemand.writes.recordUnlockedRun(held: true)
                onDemand.writes.recordUnlockedWrite(committed: true)
                return commit
            } catch is ReadsChanged {
                onDemand.writes.recordUnlockedRun(held: false)
            }
        }
        // What it reads keeps changing (a hot row): the next writes take the lock first
        // (``WriteAttemptPolicy``).
        if runs > 0 { onDemand.writes.recordUnlockedWrite(committed: false) }
        return nil
    }

    /// On a server, a resident store's write that found another store's commit first, run
    /// again as a write on demand (``StaleWriteReading``): its closure reads what it touches
    /// from the database, not the graph in memory, which is behind. It takes what it loads for
    /// new while that holds (``writeOnDemandAssumingNew(_:file:reading:)``), else reads before
    /// the write lock (``writeOnDemandReadingUnlocked(_:file:reading:)``). Once it committed,
    /// the graph follows the log to its commit (the other stores' commits before it
    /// included), and observers learn of them all from there. Nil when it did not commit that
    /// way (what it read kept changing), and where the database or the store cannot (over packs).
    private func writeStaleReadingTheDatabase<Result>(_ body: (inout Context) throws -> Result) throws -> Result? {
        guard staleWriteReadingApplies, let retry = staleWriteReading, let file = backend as? any SnapshotConnection,
              let sharing else { return nil }
        var commit: Commit<Result>?
        // Its commit is followed at once: the log is read in the commit's round trip.
        file.readLogWithCommits(after: sharing.seenCommit)
        defer { file.readLogWithCommits(after: nil) }
        do {
            commit = try writeOnDemandAssumingNew(body, file: file, reading: retry)
            if commit == nil { commit = try writeOnDemandReadingUnlocked(body, file: file, reading: retry) }
        } catch let changed as FingerprintChanged {
            try checkSchemaUnchanged(sharing: sharing, recorded: changed.recorded, path: file.location)
            throw changed
        }
        guard let commit else { return nil }
        // Committed: a failure to follow leaves the graph behind until the next check or
        // write, which follow the log to this commit.
        if !commit.changes.isEmpty { try? followToOwnCommit() }
        return commit.result
    }

    /// Whether a resident store's write can run again reading the database
    /// (``writeStaleReadingTheDatabase(_:)``): on a server, not over packs.
    private var staleWriteReadingApplies: Bool {
        guard staleWriteReading != nil, let file = backend as? any SnapshotConnection, file.checksAssumedReads,
              sharing != nil else { return false }
        return stateLock.withLock { layers } == nil
    }

    /// How many times a write on demand reads before the lock (``writeOnDemandReadingUnlocked(_:file:reading:)``)
    /// before it reads under it: under contention on the same rows, the lock taken first
    /// guarantees progress.
    static let unlockedAttempts = 3

    /// Runs `body` on a context that reads the file on demand (through `reading`) and writes
    /// its changes in `transaction`: the write reads and writes what it touches. `onDemand`
    /// counts its statements.
    private func runOnDemand<Result>(_ body: (inout Context) throws -> Result, transaction: any StoreTransaction, file: any SnapshotConnection,
                                     onDemand: any OnDemandWriting, reading: OnDemandWrite) throws -> Commit<Result> {
        // Another version of the app migrated the file: this code's layout no longer fits it
        // (checked with the write's first statements: writeBlocking reports it).
        if let sharing {
            if let failure = sharing.failure { throw failure }
            try file.expectFingerprint(sharing.fingerprint)
        }
        defer {
            reading.endWrite()
            onDemand.writes.recordStatements(reading.statements)
        }
        var context = Context(faulter: reading, reader: reading)
        let result: Result, changes: ChangeSet, before: Context
        do {
            (result, changes, before) = try context.trackingChangesKeepingBefore(body)
        } catch {
            // A read that failed may be why the closure threw: report the cause.
            throw reading.failure ?? error
        }
        if let failure = reading.failure { throw failure }
        guard !changes.isEmpty else { return Commit(result: result, before: before, after: context, changes: changes) }
        try ChangeWriter.checkEntities(changes, layout: layout, context: context)
        // Over packs, what the write changed is compared with the packs' own rows and slots.
        var layers: PackLayers?
        if let union = file.packUnion {
            let loader = PackBaseLoader(layout: layout, backend: file, union: union)
            let appendedTo = try loader.keptListsAppendedTo(changes, in: context)
            let packLayers = try loader.layers(for: changes, in: context, appendedTo: appendedTo)
            loader.readChangedPackLists(changes, layers: packLayers, except: appendedTo, in: &context)
            if let failure = reading.failure { throw failure }
            layers = packLayers
        }
        // What the write read and found missing is new.
        let written = context
        let newRows = ChangeWriter.NewRows { entity, key in reading.readAbsent(entity.idValue(key, in: written), of: entity.table) }
        try ChangeWriter(layout: layout, context: context, transaction: transaction, layers: layers, newRows: newRows, keepsDeletedKeys: true).write(changes)
        if let layers { ChangeWriter.markPackSources(changes, layout: layout, layers: layers, in: &context) }
        let described = try CommitDescription(changeSet: changes, before: before, after: context, layout: layout)
        let number = try transaction.appendCommit(CommitLog.entries(of: changes, description: described, layout: layout, context: context))
        return Commit(result: result, before: before, after: context, changes: changes, description: described, number: number)
    }

    private func finish<Result>(_ commit: Commit<Result>) -> Result {
        if let number = commit.number {
            sharing?.seenCommit = number
            // A counter that counts this store's own commits has just counted this one.
            if backend?.countsOwnCommits == true { sharing?.seenCounter = number }
        }
        stateLock.withLock { current = commit.after }
        observers.deliver(commit.changes, before: commit.before, after: commit.after, layout: layout, described: commit.description)
        retire(commit.before, rows: commit.changes.rowCount)
        return commit.result
    }

    /// Has `graph`, the one a write of `rows` changed rows replaced, freed while the store's
    /// next round trip waits for the server (``GraphRetirement``), once the write returned;
    /// dropped as the write returns without a server, or after a big write. Only its tables
    /// are kept: a graph read on demand would also keep what it reads through (a connection
    /// of its own, open until the graph goes).
    private func retire(_ graph: Context, rows: Int) {
        guard retirement != nil, rows <= GraphRetirement.mostRowsKept else { return }
        replacedGraph = graph.detachedFromStore()
    }

    /// Throws ``StoreError/nestedWrite`` on the thread running a write's closure: taking the
    /// write lock again there would wait for itself forever.
    func checkNotInsideAWrite() throws {
        guard stateLock.withLock({ writingThread !== Thread.current }) else { throw StoreError.nestedWrite }
    }

    /// Runs `body` as the only writer: the checks every write makes (not nested in a
    /// write's closure, not closed, not read-only), then `body` under the write lock.
    func exclusively<Result>(waitingForOtherWriters: Bool = true, _ body: () throws -> Result) throws -> Result {
        // A write from inside a write's closure would wait for itself forever.
        try checkNotInsideAWrite()
        // What the connection received meanwhile (commit notifications) goes to the
        // listener once the lock is released.
        var received: (commits: ReceivedCommits, seen: Int64)?
        defer { if let received { sharing?.connectionUsed(received.commits, seen: received.seen, byWrite: true) } }
        return try writeLock.withLock {
            guard !isClosed else { throw StoreError.closed }
            guard !isReadOnly else { throw StoreError.readOnly(path: backend?.location ?? "memory") }
            stateLock.withLock { writingThread = Thread.current }
            defer {
                stateLock.withLock { writingThread = nil }
                received = commitsReceivedByTheLastUse()
            }
            // Once the write's own copies of the graph it replaced are gone with its frame.
            defer { if let replaced = replacedGraph.take() { retirement?.keep(replaced) } }
            guard !waitingForOtherWriters, let backend else { return try body() }
            return try backend.withoutWaitingForOtherWriters(body)
        }
    }

    /// ``write(_:)`` from any task: waits for earlier writes without holding a thread Swift
    /// runs tasks on, then runs `body` on the latest graph in this task and commits it. In
    /// async code the compiler picks this one.
    ///
    /// On a server, called from code isolated to no actor (a request handler, a background
    /// task), the write (its wait for earlier writes, its closure, its commit) runs on a
    /// thread of the store's own while the task waits suspended (``BlockingWork``): a
    /// commit waiting for the server (its round trips, the writers' lock, a flush) holds
    /// none of the cooperative pool's threads. Called from an actor (the main actor), and
    /// on a file, the task waits for earlier writes suspended and the write then runs in
    /// place, as the synchronous write would: a file's commit mostly uses the CPU, and
    /// moving it to another thread would cost about as much again (Persistence.md, "Async").
    /// A write to a file that another store is writing to (in this process or another) is
    /// moved so, from code isolated to no actor, before it waits for that store.
    @discardableResult
    nonisolated(nonsending) public func write<Result>(_ body: (inout Context) throws -> Result) async throws -> Result {
        // Moved, the write waits for earlier ones on the store's thread too, on the write
        // lock as a synchronous write does: the next write starts as the last one ends, with
        // no task to resume in between.
        if waitsForAServer, let moved = await BlockingWork.elsewhere({ Swift.Result { try writeBlocking(body) } }) {
            return try moved.get()
        }
        await asyncWriters.enter()
        var result = Swift.Result { try writeBlocking(body, waitingForOtherWriters: false) }
        if case .failure(let error) = result, error is OtherWriterFirst {
            // Another store writes to the file (here or in another process): the wait for
            // it, which may be long (an import), goes where it holds no thread Swift runs
            // tasks on (``BlockingWork``).
            stateLock.withLock { writesBehindOtherWriters += 1 }
            result = await BlockingWork.run { Swift.Result { try writeBlocking(body) } }
        }
        await asyncWriters.leave()
        return try result.get()
    }

    /// Closes the file. Reads keep returning the last graph; writes throw ``StoreError/closed``;
    /// observations end (their streams finish). A store reading on demand reads nothing
    /// more: ``context`` is the snapshot contexts taken before still hold, else an empty
    /// graph, and ``read(_:)`` throws ``StoreError/closed``.
    public func close() {
        sharing?.stopPolling()
        // Before the writer's connection: the last connection to close checkpoints the log.
        onDemand?.close()
        writeLock.withLock {
            guard !isClosed else { return }
            isClosed = true
            backend?.close()
        }
        observers.close()
    }
}
