import Foundation

/// What a store's writes that read the database (``OnDemandWrite``) count, and what they
/// learn about the cheaper ways to commit (``WriteAttemptPolicy``): shared by the store's
/// writes, one at a time, and read by its statistics from any thread.
final class OnDemandWrites: @unchecked Sendable {
    private let lock = NSLock()
    /// Under `lock`.
    private var assumeNewPolicy = WriteAttemptPolicy()
    private var readUnlockedPolicy = WriteAttemptPolicy()
    private var counted = OnDemandStatistics()

    /// The write fields of ``OnDemandStatistics``: the writes, their statements, and those
    /// that took what they loaded for new or read before the write lock.
    var statistics: OnDemandStatistics { lock.withLock { counted } }

    /// Whether the next write assumes the entities it loads are new.
    func assumeNew() -> Bool {
        lock.withLock { assumeNewPolicy.tries() }
    }

    /// Whether the next write would try one of the cheaper ways (not only the lock first),
    /// asked without counting it as a write.
    var wouldTryWithoutTheLock: Bool {
        lock.withLock { assumeNewPolicy.wouldTry || readUnlockedPolicy.wouldTry }
    }

    /// Counts a write that assumed the entities it loaded were new: whether that held.
    func recordAssumption(held: Bool) {
        lock.withLock {
            assumeNewPolicy.record(held: held)
            counted.writesAssumingNew += 1
            if !held { counted.writesAssumingNewRetried += 1 }
        }
    }

    /// How many runs the next write makes reading before it takes the write lock: none
    /// while it backs off, one to probe after a write whose runs all found their reads
    /// changed (a hot row wastes one run, not `runs`), else `runs`.
    func runsReadingUnlocked(_ runs: Int) -> Int {
        lock.withLock { readUnlockedPolicy.tries() ? (readUnlockedPolicy.lastFailed ? 1 : runs) : 0 }
    }

    /// Counts a run of a write that read before it took the write lock: whether what it
    /// read held (it committed).
    func recordUnlockedRun(held: Bool) {
        lock.withLock {
            counted.writesReadingUnlocked += 1
            if !held { counted.writesReadingUnlockedRetried += 1 }
        }
    }

    /// Counts a write that read before it took the write lock: whether one of its runs
    /// committed that way (else it took the lock first in the end).
    func recordUnlockedWrite(committed: Bool) {
        lock.withLock { readUnlockedPolicy.record(held: committed) }
    }

    /// Counts a write's statements.
    func recordStatements(_ statements: (count: Int, reads: Int)) {
        lock.withLock {
            counted.writes += 1
            counted.writeStatements += statements.count
            counted.writeReads += statements.reads
        }
    }
}
