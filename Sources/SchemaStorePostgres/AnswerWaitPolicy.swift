/// Whether a connection polls for its next answer, and for how long (``AnswerWait``),
/// from how long its recent answers took.
///
/// - It polls only while its typical wait (a moving average, each wait weighing an eighth)
///   is at most ``longestPoll``, and for twice that typical wait, between ``shortestPoll``
///   and ``longestPoll``: answers that come quickly are caught as they come, and a
///   connection whose answers are slow (a lock held by another process, long queries)
///   sleeps at once, as libpq does.
/// - A poll that ends without the answer was time taken from the machine for nothing: the
///   next waits sleep at once, 4 of them after the first such poll, twice as many after each
///   one that follows (at most ``longestBackoff``), half as many again after each poll that
///   caught its answer. On a busy machine, where polling competes with the server and
///   other work for the cores, polls that come too late turn polling off.
struct AnswerWaitPolicy: Sendable {
    /// The longest a wait polls, and the longest typical wait for which it polls at all
    /// (nanoseconds). Polling saves about the same whatever the wait (the wake-up), and
    /// costs a core for as long as it lasts: a single write's answers, 0.12 ms after its
    /// last statement on a Unix socket, are worth it; a server across a network, whose
    /// round trips alone take longer, is waited for asleep.
    static let longestPoll: UInt64 = 200_000
    /// The shortest a wait polls (nanoseconds).
    static let shortestPoll: UInt64 = 50_000
    /// A wait counts for at most this much (nanoseconds): one of seconds would otherwise
    /// stop the polling for a hundred waits after it.
    static let longestCounted: UInt64 = 10_000_000
    /// The most waits that sleep at once after a poll that ended without the answer.
    static let longestBackoff = 256
    static let shortestBackoff = 4

    /// A moving average of recent waits, in nanoseconds. A new connection polls as long as
    /// it may until its waits say otherwise.
    private(set) var typical: UInt64 = longestPoll / 2
    /// Waits left that sleep at once.
    private(set) var skipped = 0
    /// How many waits sleep at once after the next poll that ends without the answer.
    private(set) var backoff = shortestBackoff

    /// How long the next wait polls before it sleeps (nanoseconds); nil to sleep at once.
    mutating func pollWindow() -> UInt64? {
        if skipped > 0 {
            skipped -= 1
            return nil
        }
        guard typical <= Self.longestPoll else { return nil }
        return min(Self.longestPoll, max(Self.shortestPoll, 2 * typical))
    }

    /// Counts a wait of `waited` nanoseconds; `answeredWhilePolling` is nil when it did
    /// not poll.
    mutating func record(waited: UInt64, answeredWhilePolling: Bool?) {
        let counted = min(waited, Self.longestCounted)
        typical = typical - typical / 8 + counted / 8
        switch answeredWhilePolling {
        case true?: backoff = max(backoff / 2, Self.shortestBackoff)
        case false?:
            skipped = backoff
            backoff = min(backoff * 2, Self.longestBackoff)
        case nil: break
        }
    }
}
