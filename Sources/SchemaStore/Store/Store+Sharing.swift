import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// Several stores on one file: each loads what the others commit.
///
/// A resident store holds its graph in memory, so another connection's commit reaches it as
/// a new graph: the store checks the file's commit counter (`PRAGMA data_version`, O(1))
/// every ``Store/externalCommitCheckInterval`` and before each write, and when another
/// connection committed, reads what those commits changed from the file's ``CommitLog`` and
/// applies it (O(changes)), makes the result current and tells its observers as for a local
/// write. When the log cannot tell (see `followLog(sharing:backend:)`) it loads the graph
/// again (O(stored rows)). Snapshots taken before are values and never change.
extension Store {
    /// How often a store on a file checks whether another store (in this process or
    /// another) committed to it: their commits reach ``context`` and the observers within
    /// about this long. A write checks first in any case, so it never loses another's commit.
    public static let externalCommitCheckInterval: TimeInterval = 0.05

    /// Reads the whole graph in one read transaction.
    static func loadGraph(layout: StoreLayout, backend: any StoreBackend) throws -> Context {
        try backend.readTransaction { try GraphLoader(layout: layout, backend: backend).load() }
    }

    /// Starts checking for other stores' commits, for a store on a file or a server. A
    /// server that notifies commits (PostgreSQL) is listened to, on the writers' connection
    /// (``CommitListener``), and polled only rarely, in case a notification was lost. Called
    /// holding the write lock, or while the store opens.
    func startFollowingOtherStores() {
        guard let sharing else { return }
        let listens = backend?.listenForCommits() ?? false
        let listener = {
            CommitListener(readIdle: { [weak self] in
                guard let self else { return ReceivedCommits.none }
                return try self.commitsReceivedWhileIdle()
            }, onCommit: { [weak self] in self?.checkForNotifiedCommits($0) })
        }
        if listens, sharing.startListening(listener) {
            sharing.startPolling(every: Self.notifiedCommitCheckInterval) { [weak self] in self?.checkForOtherStoresCommits() }
        } else {
            sharing.startPolling(every: Self.externalCommitCheckInterval) { [weak self] in self?.checkForOtherStoresCommits() }
        }
    }

    /// How often a store on a server that notifies commits checks for them anyway.
    static let notifiedCommitCheckInterval: TimeInterval = 1

    /// For the commit listener's thread, while no write runs: what the idle connection
    /// received (read from its socket, under the write lock); nil while a write or a check
    /// holds the lock.
    private func commitsReceivedWhileIdle() throws -> ReceivedCommits? {
        guard writeLock.try() else { return nil }
        defer { writeLock.unlock() }
        guard !isClosed, let backend else { return ReceivedCommits.none }
        return try backend.receivedCommits(readingSocket: true) ?? ReceivedCommits.none
    }

    /// Under the write lock, after a write or a check used the connection: what it received
    /// meanwhile, and the last commit the store holds, for ``SharedFile/connectionUsed(_:seen:)``
    /// once the lock is released. Nil for a connection that does not listen.
    func commitsReceivedByTheLastUse() -> (commits: ReceivedCommits, seen: Int64)? {
        guard let sharing, let received = (try? backend?.receivedCommits(readingSocket: false)) ?? nil else { return nil }
        return (received, sharing.seenCommit)
    }

    /// Notifications' check: one at a time (``NotifiedCommits``), covering every
    /// notification that came before it began; while a write runs, tried again shortly after
    /// (the commit notified may have come after the write caught up).
    private func checkForNotifiedCommits(_ waiting: NotifiedCommits.Waiting) {
        guard let sharing, sharing.notified.notify(waiting) else { return }
        runNotifiedChecks(attempt: 0)
    }

    private func runNotifiedChecks(attempt: Int) {
        guard let sharing else { return }
        var attempt = attempt
        while true {
            let covered = sharing.notified.begin()
            let ran = checkForOtherStoresCommits(notified: covered)
            if ran == nil, attempt < 100 {
                sharing.notified.putBack(covered)
                let next = attempt + 1
                DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + 0.02) { [weak self] in
                    self?.runNotifiedChecks(attempt: next)
                }
                return
            }
            guard sharing.notified.end(ran: ran) else { return }
            attempt = 0
        }
    }

    /// The timer's check, and notifications': skipped while a write runs (the write catches
    /// up itself), and when every commit `notified` was seen already (this store's own).
    /// Returns whether it ran; false when skipped, nil when a write held the lock.
    @discardableResult
    private func checkForOtherStoresCommits(notified: NotifiedCommits.Waiting = .unknown) -> Bool? {
        guard writeLock.try() else { return nil }
        var received: (commits: ReceivedCommits, seen: Int64)?
        defer {
            received = commitsReceivedByTheLastUse()
            writeLock.unlock()
            // A check, not a write: the listener goes on after its gap after a check
            // (``CommitListener/checkGap``), not after a write's quiet time.
            if let received { sharing?.connectionUsed(received.commits, seen: received.seen, byWrite: false) }
        }
        guard !isClosed, let sharing else { return false }
        if case .upTo(let last) = notified, last <= sharing.seenCommit { return false }
        // A failure leaves the current graph as it was; the next check or write tries again
        // (a write reports it).
        if isResident {
            try? catchUpWithOtherStores()
        } else {
            try? deliverOnDemandCommits()
        }
        return true
    }

    /// Applies what other connections committed since the current graph was loaded (from
    /// the log, or by loading the graph again), makes it current and tells observers. Called
    /// holding the write lock. Inside a write transaction the reads join it, so nothing can
    /// commit between them and the write; otherwise they run in one read transaction.
    ///
    /// Throws ``StoreError/schemaChangedElsewhere(path:)``, from then on, once another
    /// connection migrated the file to another schema.
    func catchUpWithOtherStores() throws {
        // An on-demand store's snapshots read the file as it is: nothing to follow.
        guard let sharing, let backend, isResident else { return }
        if let failure = sharing.failure { throw failure }
        let counter: Int64, recorded: String?
        // On a server, the log after the graph's commit is read with the counter, in the
        // read transaction below (one round trip fewer); ended unused when nothing is to
        // follow. Not over packs, whose graph is loaded whole.
        let readsLog = stateLock.withLock { layers } == nil
        defer { backend.discardLogReadAhead() }
        if let both = try backend.externalCommitCounterAndFingerprint(readingLogAfter: readsLog ? sharing.seenCommit : nil) {
            guard let value = both.counter, value != sharing.seenCounter else { return }
            (counter, recorded) = (value, both.fingerprint)
        } else {
            guard let value = try backend.externalCommitCounter(), value != sharing.seenCounter else { return }
            (counter, recorded) = (value, try backend.recordedFingerprint())
        }
        try checkSchemaUnchanged(sharing: sharing, recorded: recorded, path: backend.location)
        try backend.readTransaction {
            if try !followLog(sharing: sharing, backend: backend) { try reload(sharing: sharing, backend: backend) }
        }
        // A counter that is the last commit's number (a server's) may have been read before
        // the log (over packs, or with the log read apart), which may have held a later
        // commit by then: the one applied is the counter seen. Else the next check would
        // find the counter changed and nothing after it in the log, and load the graph
        // whole (one catch-up in 30 with two writers).
        sharing.seenCounter = backend.countsOwnCommits ? max(counter, sharing.seenCommit) : counter
    }

    /// After this store's own commit made without its graph (a stale write that ran reading
    /// the database): follows the log to that commit and past it. Skips what a catch-up asks
    /// first (the last commit, known to be past the graph's; the schema, checked by the
    /// commit under the write lock).
    func followToOwnCommit() throws {
        guard let sharing, let backend, isResident, backend.countsOwnCommits else { return }
        try backend.readTransaction {
            if try !followLog(sharing: sharing, backend: backend) { try reload(sharing: sharing, backend: backend) }
        }
        sharing.seenCounter = sharing.seenCommit
    }

    /// Throws ``StoreError/schemaChangedElsewhere(path:)``, and keeps throwing it, when the
    /// fingerprint the file records now (`recorded`) is not the one it had when the store
    /// opened: another version of the app migrated it, and this code's layout no longer fits.
    func checkSchemaUnchanged(sharing: SharedFile, recorded: String?, path: String) throws {
        if let failure = sharing.failure { throw failure }
        guard recorded == sharing.fingerprint else {
            let failure = StoreError.schemaChangedElsewhere(path: path)
            sharing.failure = failure
            throw failure
        }
    }

    /// Loads what the other stores' commits changed, from the ``CommitLog``: the rows and
    /// link slots they name, read by id, applied in one transaction whose change set the
    /// observers receive as for a local write. O(what the commits changed). Returns false,
    /// changing nothing, when the log cannot tell: commits it no longer keeps, a commit
    /// without entries (a writer that kept no log), or a resident store over packs (loaded whole).
    private func followLog(sharing: SharedFile, backend: any StoreBackend) throws -> Bool {
        guard stateLock.withLock({ layers }) == nil else { return false }
        let entries = try backend.commits(after: sharing.seenCommit)
        guard let first = entries.first, first.commit == sharing.seenCommit + 1,
              Set(entries.map(\.commit)).count == Int(entries.last!.commit - sharing.seenCommit) else { return false }
        let before = self.context
        var context = before
        let changes: ChangeSet
        do {
            (_, changes) = try context.trackingChanges { context in
                var done = Set<CommitLog.Entry>()
                // A row every commit here only relinked is as the graph holds it: neither read
                // nor written again (refreshing it read it and redid its indexes for nothing).
                let rewritten = Set(entries.map(\.entry).filter { $0.kind == .row && !$0.leavesRowUnchanged })
                let rowEntries = entries.map(\.entry).filter { $0.kind == .row && rewritten.contains($0) && done.insert($0).inserted }
                // Each slot once. A list the commits only appended to reads just its new
                // tail (a chat's newest messages, not all of them); any other change reads it whole.
                var linkEntries: [CommitLog.Entry] = [], appended: [CommitLog.Entry: Int] = [:]
                for (_, entry) in entries where entry.kind == .link {
                    let first = done.insert(entry).inserted
                    if first { linkEntries.append(entry) }
                    if let count = entry.appendedCount, first || appended[entry] != nil {
                        appended[entry, default: 0] += count
                    } else {
                        appended[entry] = nil
                    }
                }
                // Every table's rows and links read together (one round trip on a server).
                var request = BatchedRead()
                for (name, group) in Dictionary(grouping: rowEntries, by: \.name) {
                    guard let entity = layout.entityByName[name] else { continue }
                    request.rows.append((name, entity, group.map(\.id)))
                    sharing.rowsRead += group.count
                }
                for (name, group) in Dictionary(grouping: linkEntries, by: \.name) {
                    guard let link = layout.linkByName[name] else { continue }
                    let whole = group.filter { appended[$0] == nil }.map(\.id)
                    if !whole.isEmpty { request.targets.append((name, link, whole)) }
                    let tails = group.compactMap { entry in appended[entry].map { (owner: entry.id, count: $0) } }
                    if !tails.isEmpty { request.lastTargets.append((name, link, tails)) }
                }
                let read = try backend.read(request)
                // Rows first, so that links find every entity they name, applied in log order.
                for entry in rowEntries {
                    guard let entity = layout.entityByName[entry.name] else { continue }
                    try entity.refreshRow(read.rows[entry.name]?[entry.id], id: entry.id, in: &context)
                }
                for (_, entry) in entries where entry.kind == .archive && done.insert(entry).inserted {
                    guard let archive = layout.archivesByName[entry.name] else { continue }
                    try archive.refresh(try backend.archive(name: entry.name, id: entry.id), id: entry.id, in: &context)
                }
                let linked = read.targets
                for entry in linkEntries {
                    guard let link = layout.linkByName[entry.name] else { continue }
                    let owner = try link.ownerEntity.loadKey(entry.id, into: &context)
                    let targets = try (linked[entry.name]?[entry.id] ?? []).map { try link.targetEntity.loadKey($0, into: &context) }
                    if link.isToMany { sharing.listLinksRead += targets.count }
                    // A stored inverse has log entries of its own (both ends of a change are
                    // written); only a derived one is kept in step here, as loading does.
                    guard appended[entry] != nil else {
                        context.setLinks(link.owner, link.slot, of: owner, to: targets, targetTable: link.target, inverse: link.derivedInverse)
                        continue
                    }
                    // New links only: one the graph holds already means it is not the list
                    // the commits appended to (then the graph is loaded again).
                    guard !targets.contains(where: { context.links(link.owner, link.slot, of: owner, to: $0) }) else { throw FollowFailure() }
                    context.appendLinks(link.owner, link.slot, of: owner, targets, targetTable: link.target, inverse: link.derivedInverse)
                }
            }
        } catch {
            // An order of rows that passes through a unique collision, or a row that cannot
            // be read as this code's entity: load the graph whole, which reports the latter.
            return false
        }
        sharing.seenCommit = entries.last!.commit
        sharing.followed += 1
        stateLock.withLock { current = context }
        observers.deliver(changes, before: before, after: context, layout: layout)
        return true
    }

    /// A log that does not fit the graph it is applied to: the graph is loaded again.
    private struct FollowFailure: Error {}

    /// Loads the whole graph again (inside the caller's read transaction) and delivers the
    /// difference, compared by id.
    private func reload(sharing: SharedFile, backend: any StoreBackend) throws {
        let layers = stateLock.withLock { self.layers }
        let graph = try layers.map { layers in try Self.readingLayers(path: backend.location) { try Self.loadUnified(layers, layout: layout, backend: backend).context } }
            ?? Self.loadGraph(layout: layout, backend: backend)
        sharing.seenCommit = try backend.lastCommit() ?? 0
        sharing.reloaded += 1
        let before = self.context
        stateLock.withLock { current = graph }
        observers.deliverReload(before: before, after: graph, layout: layout)
    }

    /// How many commit notifications this store received (PostgreSQL), its own commits'
    /// included.
    @_spi(SchemaStoreTesting)
    public var commitNotificationsReceived: Int { sharing?.notificationsReceived ?? 0 }

    /// How many checks of notified commits ran, and how many were skipped because every
    /// commit notified was seen already (this store's own).
    @_spi(SchemaStoreTesting)
    public var notifiedCommitChecks: (ran: Int, skipped: Int) { sharing?.notified.counts ?? (0, 0) }

    /// How many writes on a server found that another store committed first, and ran again.
    @_spi(SchemaStoreTesting)
    public var staleWriteRetries: Int { writeLock.withLock { optimisticRetries } }

    /// How many of a resident store's writes on a server skipped their first run on the graph,
    /// starting to read the database at once: other stores had committed first to most of the
    /// runs on the graph before them (``StaleWriteReading``).
    @_spi(SchemaStoreTesting)
    public var graphRunsSkipped: Int { staleWriteReading?.graphRunsSkipped ?? 0 }

    /// What a resident store's writes that ran again reading the database did
    /// (``StaleWriteReading``): writes that took what they loaded for new, runs that read
    /// before the write lock, and how many of each ran again.
    @_spi(SchemaStoreTesting)
    public var staleWriteStatistics: OnDemandStatistics { staleWriteReading?.writes.statistics ?? OnDemandStatistics() }

    /// Of a resident store's writes that ran again, the runs that read before the write lock,
    /// and how many of those found what they read changed (and ran again).
    @_spi(SchemaStoreTesting)
    public var staleWritesReadUnlocked: (runs: Int, changed: Int) {
        let statistics = staleWriteStatistics
        return (statistics.writesReadingUnlocked, statistics.writesReadingUnlockedRetried)
    }

    /// How many times the store's connection to a server waited for answers to reads (and
    /// what went with them); 0 for a file.
    @_spi(SchemaStoreTesting)
    public var serverRoundTrips: Int { writeLock.withLock { (backend as? any SnapshotConnection)?.roundTrips ?? 0 } }

    /// Stops following other stores' commits in the background: they arrive only through
    /// ``refresh()`` and writes, so a test decides which commits a catch-up applies together.
    @_spi(SchemaStoreTesting)
    public func stopFollowingInTheBackground() { sharing?.stopPolling() }

    /// How many times this store followed other stores' commits from the file's log, and how
    /// many times it loaded the whole graph again instead.
    @_spi(SchemaStoreTesting)
    public var catchUps: (followed: Int, reloaded: Int) {
        writeLock.withLock { (sharing?.followed ?? 0, sharing?.reloaded ?? 0) }
    }

    /// How many links of to-many lists this store read while following other stores'
    /// commits from the log.
    @_spi(SchemaStoreTesting)
    public var listLinksReadFollowing: Int { writeLock.withLock { sharing?.listLinksRead ?? 0 } }

    /// How many rows this store read while following other stores' commits from the log.
    @_spi(SchemaStoreTesting)
    public var rowsReadFollowing: Int { writeLock.withLock { sharing?.rowsRead ?? 0 } }

    /// Loads what other stores (in this process or others) committed to the file now,
    /// instead of at the next check: their commits are in ``context`` when it returns, and
    /// observers have been told. Does nothing for a store no other can open. Throws
    /// ``StoreError/schemaChangedElsewhere(path:)`` once another store migrated the file.
    public func refresh() throws {
        // Inside a write's closure the write holds the lock, and has caught up already.
        try checkNotInsideAWrite()
        try writeLock.withLock {
            guard !isClosed else { throw StoreError.closed }
            // Reading on demand, every context reads the file as it is: only observers wait.
            if isResident { try catchUpWithOtherStores() } else { try deliverOnDemandCommits() }
        }
    }
}
