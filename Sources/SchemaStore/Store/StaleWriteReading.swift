import Foundation

/// How a resident store on a server runs a write again once its first run found another
/// store's commit first (``Store/write(_:)``): as a write on demand (``OnDemandWrite``), which
/// takes what it loads for new while that holds, else reads what it touches before it takes
/// the write lock and commits if no other commit changed it (``WriteAttemptPolicy``). Its
/// graph then follows the log to its commit.
///
/// It also decides whether a write runs on the graph first at all. That run commits in one
/// round trip when no other store committed since the graph's last commit, and is wasted
/// (a round trip and a run of the closure) when one did; while other stores commit between
/// most of this store's writes, its writes start reading the database instead, and try the
/// graph again now and then (``WriteAttemptPolicy``, one policy more), unless on the database
/// they would take the lock first.
final class StaleWriteReading: OnDemandWriting, @unchecked Sendable {
    let links: LinkLookup
    /// Set once, called by the store's writes one at a time.
    let connect: () throws -> any SnapshotConnection
    let writes = OnDemandWrites()
    private let lock = NSLock()
    /// Under `lock`.
    private var graphFirstPolicy = WriteAttemptPolicy()
    private var skipped = 0
    /// Whether the policy chose the current write's way (``runsOnGraphFirst()``).
    private var policyDecided = false

    init(links: LinkLookup, connect: @escaping () throws -> any SnapshotConnection) {
        self.links = links
        self.connect = connect
    }

    /// Whether the next write first runs on the graph; counted in ``graphRunsSkipped`` when not.
    /// Always when the write, run on the database, would take the lock first (``writes``
    /// backs off from both cheaper ways: a hot row): then the run on the graph is its only
    /// chance to commit in one round trip, and to hold the lock that briefly.
    func runsOnGraphFirst() -> Bool {
        let decides = writes.wouldTryWithoutTheLock
        return lock.withLock {
            policyDecided = decides
            guard decides else { return true }
            let tries = graphFirstPolicy.tries()
            if !tries { skipped += 1 }
            return tries
        }
    }

    /// Counts a write that ran on the graph first: whether that run committed (`held`) or
    /// found another store's commit first. Only runs the policy chose count: those made
    /// because the database's way was the lock tell nothing of whether skipping pays.
    func recordRunOnGraph(held: Bool) {
        lock.withLock { if policyDecided { graphFirstPolicy.record(held: held) } }
    }

    /// How many writes started reading the database, skipping their run on the graph.
    var graphRunsSkipped: Int { lock.withLock { skipped } }
}
