/// Whether a write on demand on a server assumes that the entities it loads are new
/// (``OnDemandWrite``): it then reads nothing before its commit, and its commit's statements
/// check that nothing was there, in one round trip instead of two. When the check finds
/// rows (the write updated entities that exist), nothing was written and the write runs
/// again, reading first: three round trips.
///
/// So a store backs off after an assumption that failed: the next ``shortestBackoff`` writes
/// read first, twice as many after each failure that follows (at most ``longestBackoff``),
/// half as many again after each assumption that held. A store that mostly creates entities
/// assumes nearly always; one that mostly updates them pays a failed assumption once in up
/// to ``longestBackoff`` writes.
struct AssumeNewPolicy: Sendable, Hashable {
    static let shortestBackoff = 4
    static let longestBackoff = 256

    /// Writes left that read first.
    private(set) var skipped = 0
    /// How many writes read first after the next assumption that fails.
    private(set) var backoff = shortestBackoff

    /// Whether the next write assumes.
    mutating func assumes() -> Bool {
        guard skipped == 0 else {
            skipped -= 1
            return false
        }
        return true
    }

    /// Counts a write that assumed: whether its assumption held.
    mutating func record(held: Bool) {
        if held {
            backoff = max(backoff / 2, Self.shortestBackoff)
        } else {
            skipped = backoff
            backoff = min(backoff * 2, Self.longestBackoff)
        }
    }
}
