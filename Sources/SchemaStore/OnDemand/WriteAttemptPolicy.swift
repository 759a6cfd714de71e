/// Whether a store's next write tries a way of committing that is cheaper when it works and
/// costs a wasted run of the closure when it does not, and backs off after failures. A store
/// keeps one for each such way:
///
/// - taking what a write on demand loads for new (``OnDemandWrite``): it then reads nothing
///   before its commit, and its commit's statements check that nothing was there, in one
///   round trip instead of two. When the check finds rows (the write updated entities that
///   exist), nothing was written and the write runs again, reading first: three round trips.
/// - reading before the write lock (``StoreBackend/transactionValidatingReads(_:_:)``): the
///   lock is held for the commit's last round trip only. When other commits keep changing
///   what the write reads (a hot row), its runs are wasted, and it takes the lock first in
///   the end (``Store/unlockedAttempts``).
///
/// After an attempt that failed, the next ``shortestBackoff`` writes do not try, twice as
/// many after each failure that follows (at most ``longestBackoff``), half as many again
/// after each attempt that held. A store whose attempts mostly hold tries nearly always; one
/// whose attempts mostly fail pays a failure once in up to ``longestBackoff`` writes (and the
/// attempt after a failure, a probe, may be made cheaper: ``lastFailed``).
struct WriteAttemptPolicy: Sendable, Hashable {
    static let shortestBackoff = 4
    static let longestBackoff = 256

    /// Writes left that do not try.
    private(set) var skipped = 0
    /// How many writes do not try after the next attempt that fails.
    private(set) var backoff = shortestBackoff
    /// Whether the last attempt failed: the next one probes whether it would hold now.
    private(set) var lastFailed = false

    /// Whether the next write tries.
    mutating func tries() -> Bool {
        guard skipped == 0 else {
            skipped -= 1
            return false
        }
        return true
    }

    /// Whether the next write would try, asked without counting it as a write.
    var wouldTry: Bool { skipped == 0 }

    /// Counts a write that tried: whether its attempt held.
    mutating func record(held: Bool) {
        lastFailed = !held
        if held {
            backoff = max(backoff / 2, Self.shortestBackoff)
        } else {
            skipped = backoff
            backoff = min(backoff * 2, Self.longestBackoff)
        }
    }
}
