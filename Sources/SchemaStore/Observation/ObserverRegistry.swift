import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// The observers of one store, and the delivery of its commits to them.
///
/// The store delivers each commit while it still holds its write lock, after making the
/// commit's graph current: observers see commits in commit order, each once. Observers only
/// enqueue (a stream's `yield`) or run a cheap test, so delivery adds little to a write;
/// nothing is computed for a commit when no one observes.
final class ObserverRegistry: @unchecked Sendable {
    /// One commit, as observers receive it. Its ``StoreChanges`` are built on first use, so
    /// live queries, which need only the ``ChangeSet``, do not pay for them.
    final class Commit: @unchecked Sendable {
        let number: Int
        /// The write's change set; nil when the whole graph was loaded again (a pack
        /// installed or removed), so keys of `before` and `after` do not correspond.
        let changeSet: ChangeSet?
        let before: Context
        let after: Context
        private let layout: StoreLayout
        /// The keys the commit touched per table, for live queries (``QueryReach``).
        private(set) lazy var touchedKeys = changeSet?.touchedKeys ?? [:]
        /// The commit's changes; nil when it changed nothing. Read only during delivery, which
        /// one thread runs at a time. The commit wrote these same rows to the store already,
        /// so reading them cannot fail.
        private(set) lazy var changes: StoreChanges? = {
            switch known {
            case .logged(let changes): return changes?.renumbered(number, context: after)
            case .described(let description): return StoreChanges(commit: number, description: description, after: after, layout: layout)
            case .unknown:
                if let changeSet { return try? StoreChanges(commit: number, changeSet: changeSet, before: before, after: after, layout: layout) }
                return StoreChanges(commit: number, reloadedFrom: before, to: after, layout: layout)
            }
        }()
        private enum Known {
            /// Computed from the graphs on first use.
            case unknown
            /// Described by the writer already (for its log).
            case described(CommitDescription)
            /// Read from the file's log (nil: nothing changed).
            case logged(StoreChanges?)
        }
        private let known: Known
        /// For a commit read from the log by a store reading on demand: the tables it changed
        /// (keys of ``after`` do not name its rows).
        let touchedTables: Set<ObjectIdentifier>?

        init(number: Int, changeSet: ChangeSet?, before: Context, after: Context, layout: StoreLayout, described: CommitDescription? = nil) {
            self.number = number
            self.changeSet = changeSet
            self.before = before
            self.after = after
            self.layout = layout
            known = described.map(Known.described) ?? .unknown
            touchedTables = nil
        }

        /// A commit another store made, as the log describes it, seen from a store reading on
        /// demand: `after` is a snapshot of the file after it.
        init(number: Int, described: StoreChanges?, touchedTables: Set<ObjectIdentifier>, after: Context, layout: StoreLayout) {
            self.number = number
            changeSet = nil
            before = after
            self.after = after
            self.layout = layout
            known = .logged(described)
            self.touchedTables = touchedTables
        }
    }

    private struct Observer {
        let receive: @Sendable (Commit) -> Void
        let finish: @Sendable () -> Void
    }

    private let lock = NSLock()
    /// In registration order, which is delivery order.
    private var observers: [(id: Int, observer: Observer)] = []
    /// Live queries: how to signal each, and what each watches.
    private var liveQueries: [Int: Observer] = [:]
    private var liveIndex = LiveQueryIndex()
    private var nextID = 0
    private var isClosed = false
    private var commits = 0

    /// The number of registered observers.
    var count: Int { lock.withLock { observers.count + liveQueries.count } }

    /// Registers an observer of every commit. Returns nil, after calling `finish`, when the
    /// store is closed.
    func add(receive: @escaping @Sendable (Commit) -> Void, finish: @escaping @Sendable () -> Void) -> Int? {
        register(finish: finish) { id in observers.append((id, Observer(receive: receive, finish: finish))) }
    }

    /// Registers a live query, pending: its consumer is about to evaluate it. `signal` runs
    /// (under the lock) for each commit that may change its result. Returns nil, after
    /// calling `finish`, when the store is closed.
    func addLiveQuery(signal: @escaping @Sendable () -> Void, finish: @escaping @Sendable () -> Void) -> Int? {
        register(finish: finish) { id in
            liveQueries[id] = Observer(receive: { _ in signal() }, finish: finish)
            liveIndex.add(id)
        }
    }

    private func register(finish: () -> Void, _ add: (Int) -> Void) -> Int? {
        let id: Int? = lock.withLock {
            guard !isClosed else { return nil }
            nextID += 1
            add(nextID)
            return nextID
        }
        if id == nil { finish() }
        return id
    }

    func remove(_ id: Int) {
        lock.withLock {
            observers.removeAll { $0.id == id }
            liveQueries[id] = nil
            liveIndex.remove(id)
        }
    }

    /// The consumer of live query `id` is about to read the current graph.
    func beginEvaluation(_ id: Int) {
        lock.withLock { liveIndex.beginEvaluation(id) }
    }

    /// The consumer of live query `id` has a result depending on `reach`.
    func endEvaluation(_ id: Int, reach: QueryReach) {
        lock.withLock {
            guard liveQueries[id] != nil else { return }
            liveIndex.endEvaluation(id, reach: reach)
        }
    }

    /// Delivers a committed write to every observer. Called by the writer holding the
    /// store's write lock; a write that wrote nothing is not a commit.
    func deliver(_ changeSet: ChangeSet, before: Context, after: Context, layout: StoreLayout, described: CommitDescription? = nil) {
        lock.withLock {
            guard !changeSet.isEmpty else { return }
            commits += 1
            guard !observers.isEmpty || !liveQueries.isEmpty else { return }
            let commit = Commit(number: commits, changeSet: changeSet, before: before, after: after, layout: layout, described: described)
            for entry in observers { entry.observer.receive(commit) }
            if !liveQueries.isEmpty {
                for id in liveIndex.signalled(by: commit.touchedKeys) { liveQueries[id]?.receive(commit) }
            }
        }
    }

    /// Delivers what other stores committed, read from the file's log by a store reading on
    /// demand (`after` is a snapshot after them): live queries watching a table they changed
    /// are signalled (their keys name no rows of this store's graphs).
    func deliverLogged(_ changes: StoreChanges?, touchedTables: Set<ObjectIdentifier>, after: Context, layout: StoreLayout) {
        lock.withLock {
            guard changes != nil || !touchedTables.isEmpty else { return }
            commits += 1
            guard !observers.isEmpty || !liveQueries.isEmpty else { return }
            let commit = Commit(number: commits, described: changes, touchedTables: touchedTables, after: after, layout: layout)
            for entry in observers { entry.observer.receive(commit) }
            if !liveQueries.isEmpty {
                for id in liveIndex.signalled(byTables: touchedTables) { liveQueries[id]?.receive(commit) }
            }
        }
    }

    /// Delivers a graph loaded afresh (packs installed or removed) as one commit: changes
    /// compared by id over the whole graph, and every live query signalled. Nothing is
    /// delivered when nothing changed.
    func deliverReload(before: Context, after: Context, layout: StoreLayout) {
        lock.withLock {
            let commit = Commit(number: commits + 1, changeSet: nil, before: before, after: after, layout: layout)
            guard commit.changes != nil else { return }
            commits += 1
            for entry in observers { entry.observer.receive(commit) }
            for id in liveQueries.keys.sorted() { liveQueries[id]?.receive(commit) }
        }
    }

    /// Ends every observation: streams finish. Later registrations finish at once.
    func close() {
        let finishing: [Observer] = lock.withLock {
            isClosed = true
            defer {
                observers = []
                liveQueries = [:]
                liveIndex = LiveQueryIndex()
            }
            return observers.map(\.observer) + liveQueries.values
        }
        // Outside the lock: finishing a stream runs its termination handler, which removes it.
        for observer in finishing { observer.finish() }
    }
}

/// Keeps an observation registered while a stream or its iterator exists.
final class ObservationToken: Sendable {
    private let registry: ObserverRegistry
    private let id: Int?

    init(registry: ObserverRegistry, id: Int?) {
        self.registry = registry
        self.id = id
    }

    deinit {
        if let id { registry.remove(id) }
    }
}
