import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// Several stores on one file: each loads what the others commit.
///
/// A resident store holds its graph in memory, so another connection's commit reaches it as
/// a new graph: the store checks the file's commit counter (`PRAGMA data_version`, O(1))
/// every ``Store/externalCommitCheckInterval`` and before each write, and when another
/// connection committed, loads the graph again (O(stored rows)), makes it current and tells
/// its observers, as for a pack installed (changes compared by id). Snapshots taken before
/// are values and never change.
extension Store {
    /// How often a store on a file checks whether another store (in this process or
    /// another) committed to it: their commits reach ``context`` and the observers within
    /// about this long. A write checks first in any case, so it never loses another's commit.
    public static let externalCommitCheckInterval: TimeInterval = 0.05

    /// Reads the whole graph in one read transaction.
    static func loadGraph(layout: StoreLayout, backend: any StoreBackend) throws -> Context {
        try backend.readTransaction { try GraphLoader(layout: layout, backend: backend).load() }
    }

    /// Starts checking for other stores' commits, for a store on a file.
    func startFollowingOtherStores() {
        sharing?.startPolling(every: Self.externalCommitCheckInterval) { [weak self] in self?.checkForOtherStoresCommits() }
    }

    /// The timer's check: skipped while a write runs (the write catches up itself).
    private func checkForOtherStoresCommits() {
        guard writeLock.try() else { return }
        defer { writeLock.unlock() }
        guard !isClosed else { return }
        // A failure leaves the current graph as it was; the next check or write tries again
        // (a write reports it).
        try? catchUpWithOtherStores()
    }

    /// Loads the graph again if another connection committed since the current graph was
    /// loaded, makes it current and delivers the difference to observers. Called holding the
    /// write lock; `insideTransaction` when a write transaction is open (the load then reads
    /// in it, so nothing can commit between the load and the write).
    ///
    /// Throws ``StoreError/schemaChangedElsewhere(path:)``, from then on, once another
    /// connection migrated the file to another schema.
    func catchUpWithOtherStores(insideTransaction: Bool = false) throws {
        guard let sharing, let backend else { return }
        if let failure = sharing.failure { throw failure }
        guard let counter = try backend.externalCommitCounter(), counter != sharing.seenCounter else { return }
        guard try backend.recordedFingerprint() == sharing.fingerprint else {
            let failure = StoreError.schemaChangedElsewhere(path: backend.location)
            sharing.failure = failure
            throw failure
        }
        let layers = stateLock.withLock { self.layers }
        let graph = try layers.map { layers in try Self.readingLayers(path: backend.location) { try Self.loadUnified(layers, layout: layout, backend: backend).context } }
            ?? Self.loadGraph(layout: layout, backend: backend)
        sharing.seenCounter = counter
        let before = self.context
        stateLock.withLock { current = graph }
        observers.deliverReload(before: before, after: graph, layout: layout)
    }
}
