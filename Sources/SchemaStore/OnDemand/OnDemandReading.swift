import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// The snapshots of a store opened ``Store/Residency/onDemand``: ``Store/context`` hands out
/// the current one, and takes a new one once the file changed.
///
/// Whether the file changed is `PRAGMA data_version` on a connection of its own, which counts
/// the commits of every other connection, this store's writes included: O(1), no file read.
/// Contexts taken between two commits share one snapshot (one connection, one read
/// transaction); it ends when the last of them is gone.
final class OnDemandReading: @unchecked Sendable {
    private let path: String
    private let layout: StoreLayout
    private let links: LinkLookup
    private let lockTimeout: TimeInterval
    private let probe: SQLiteBackend
    private let lock = NSLock()
    private var snapshot: OnDemandSnapshot?
    private var version: Int64?
    /// What the snapshots did, summed as they end (see ``Store/onDemandStatistics``).
    private var finished = OnDemandStatistics()

    init(path: String, layout: StoreLayout, lockTimeout: TimeInterval) throws {
        self.path = path
        self.layout = layout
        self.links = LinkLookup(layout)
        self.lockTimeout = lockTimeout
        probe = try SQLiteBackend(path: path, durability: .normal, lockTimeout: lockTimeout, readOnly: true)
        // The first snapshot now: a file that cannot be read fails the open, not a query.
        try lock.withLock { _ = try current() }
    }

    deinit { probe.close() }

    /// A context reading the file as it is now.
    func context() -> Context {
        lock.withLock {
            do {
                return Context(reader: try current())
            } catch {
                preconditionFailure("SchemaStore: cannot read \(path): \(error)")
            }
        }
    }

    /// The snapshot of the file as it is now: the last one, unless the file changed since.
    private func current() throws -> OnDemandSnapshot {
        let now = try probe.externalCommitCounter()
        if let snapshot, now == version { return snapshot }
        if let snapshot { finished.add(snapshot.statistics) }
        let next = try OnDemandSnapshot(path: path, layout: layout, links: links, lockTimeout: lockTimeout)
        snapshot = next
        version = now
        return next
    }

    /// What the snapshots taken so far did.
    var statistics: OnDemandStatistics {
        lock.withLock {
            var total = finished
            if let snapshot { total.add(snapshot.statistics) }
            return total
        }
    }

    /// The SQL the current snapshot runs first for `list`, with SQLite's plan for it.
    func sql<Entity: EntityModelProtocol>(for list: QueryList<Entity>) -> (text: String, plan: [String])? {
        let snapshot = lock.withLock { try? current() }
        guard let (select, plan) = snapshot?.sql(for: list) else { return nil }
        return (SQLRenderer.render(select, in: SQLiteDialect()).text, plan)
    }
}

extension OnDemandStatistics {
    mutating func add(_ other: OnDemandStatistics) {
        materializations += other.materializations
        statements += other.statements
        counts += other.counts
        wholeGraphReads += other.wholeGraphReads
    }
}
