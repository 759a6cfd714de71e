import Foundation

/// Hears of other stores' commits on the store's own connection, which listens for the
/// notifications writers send when they commit (`NOTIFY "schemagen:commits"`, carrying the
/// commit number), and calls `onCommit` with what they say: other stores' commits then reach
/// this one as soon as the server tells it, instead of at its next poll.
///
/// The connection is the writers' (``StoreBackend/listenForCommits()``), not one of its own:
/// a store's own commits are then notified to the connection that made them, at no cost,
/// where a second connection listening was woken by each of them (the server signalling
/// its process, the store's thread reading it): 7% of a single write on PostgreSQL, and one
/// connection less per store. What arrives with a write's answers is handed over when the
/// write ends (``connectionUsed(_:seen:)``). While the store does not write, this
/// listener's thread waits on the connection's socket and reads what arrives, under the
/// write lock (`readIdle`); it starts waiting only once no write has used the connection for
/// ``quiet`` seconds, so that a store writing back to back is not woken by its own writes'
/// answers. A check (a catch-up after a notification) is no write: the listener reads
/// again soon after it (``checkGap``), else a store that only follows others' commits
/// would hear of them at most once per ``quiet``.
final class CommitListener: @unchecked Sendable {
    /// The channel every writer of a SchemaGen database notifies.
    static let channel = "schemagen:commits"
    /// How long after a write the connection is left alone: a store writing at least this
    /// often hears of other stores' commits with its writes' answers, and its listener
    /// wakes at most this often meanwhile (0.5 ms cost a single write about 3%). Then a
    /// store catches up with others' commits in its next write rather than between writes:
    /// under 2 processes writing as fast as they can, the writes' p99 may be worse
    /// (`postgres-load 2`: 2.8-4.3 ms against 2.5-3.4 ms with a connection listening apart,
    /// noisy), their median and throughput a little better.
    static let quiet: TimeInterval = 0.005
    /// How long after a check the next one waits: under a stream of commits, each check
    /// covers what came during the one before and this gap, so a store that only follows
    /// catches up at most a few hundred times a second (each catch-up costs the server two
    /// statements, and the store 0.4-0.6 ms of CPU). Checking after every commit heard of
    /// slowed the commits' writer by a fifth on this machine (`postgres-load writes-only
    /// followers=2 1`: 1,305-1,389 against 1,640-1,822 ops/s with this gap, lag p50 2.3-2.5
    /// against 3.6-3.7 ms); 2 ms left the lag at 3.8-5.7 ms for no more writes. A follower of
    /// commits that come further apart hears of each as it comes.
    static let checkGap: TimeInterval = 0.001
    /// The longest wait on the socket: a stop, or a lost connection, is noticed within it.
    static let longestWait: Int32 = 200

    /// What the idle connection received, read under the write lock; nil when a write (or
    /// a check) holds the lock.
    private let readIdle: @Sendable () throws -> ReceivedCommits?
    private let onCommit: @Sendable (NotifiedCommits.Waiting) -> Void
    /// Guards everything below, and wakes the thread for a hand-over or a stop.
    private let condition = NSCondition()
    private var stopped = false
    /// Notifications a write received for commits it had not seen, for the thread to check.
    private var handedOver: NotifiedCommits.Waiting?
    /// When a write last used the connection.
    private var lastUse = Date.distantPast
    private var received = 0
    private let finished = DispatchSemaphore(value: 0)

    /// How long after a write this listener leaves the connection alone, and how long after
    /// a check it waits before the next (``quiet``, ``checkGap``; other values in tests).
    private let quietAfterWrite: TimeInterval
    private let gapAfterCheck: TimeInterval
    /// When the last check (`onCommit`) ended.
    private var lastCheck = Date.distantPast

    init(readIdle: @escaping @Sendable () throws -> ReceivedCommits?, quiet: TimeInterval = CommitListener.quiet,
         checkGap: TimeInterval = CommitListener.checkGap, onCommit: @escaping @Sendable (NotifiedCommits.Waiting) -> Void) {
        self.readIdle = readIdle
        quietAfterWrite = quiet
        gapAfterCheck = checkGap
        self.onCommit = onCommit
        let thread = Thread { [self] in run() }
        thread.name = "SchemaStore commit listener"
        thread.start()
    }

    /// How many commit notifications arrived, this store's own included.
    var notificationsReceived: Int { condition.withLock { received } }

    /// A write (`byWrite`) or a check used the connection and took what it received: `seen`
    /// is the last commit the store holds after it. Commits past it are checked on this
    /// listener's thread; returns whether every commit notified was seen (the store's own).
    /// After a write, the connection is left alone for ``quiet`` seconds.
    @discardableResult
    func connectionUsed(_ commits: ReceivedCommits?, seen: Int64, byWrite: Bool) -> Bool {
        condition.withLock {
            if byWrite { lastUse = Date() }
            guard let commits else { return false }
            received += commits.count
            guard let waiting = commits.commits else { return false }
            if case .upTo(let last) = waiting, last <= seen { return true }
            handedOver = waiting.merged(with: handedOver)
            condition.signal()
            return false
        }
    }

    private func run() {
        while let waiting = nextWork() {
            if let waiting {
                check(waiting)
                continue
            }
            // The connection is idle: what came, then a wait for more on its socket.
            let commits: ReceivedCommits?
            do {
                commits = try readIdle()
            } catch {
                // The connection was lost: the store's next statement (a write, or the
                // checks once a second) opens another, which notes what it may have missed.
                pause(seconds: 0.2)
                continue
            }
            guard let commits else {
                // A write or a check holds the connection: wait until it has been quiet.
                condition.withLock { lastUse = Date() }
                continue
            }
            condition.withLock { received += commits.count }
            if let waiting = commits.commits { check(waiting) }
            guard commits.socket >= 0 else {
                pause(seconds: 0.2)
                continue
            }
            var descriptor = pollfd(fd: commits.socket, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, Self.longestWait)
        }
        finished.signal()
    }

    /// Runs the check of `waiting`, and notes when it ended.
    private func check(_ waiting: NotifiedCommits.Waiting) {
        onCommit(waiting)
        condition.withLock { lastCheck = Date() }
    }

    /// Waits for something to do, at least ``checkGap`` after the last check: notifications
    /// handed over (`.some(waiting)`), or the connection quiet for ``quiet`` seconds since
    /// the last write (`.some(nil)`); nil once stopped.
    private func nextWork() -> NotifiedCommits.Waiting?? {
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            let checkable = lastCheck.addingTimeInterval(gapAfterCheck)
            if let waiting = handedOver, Date() >= checkable {
                handedOver = nil
                return .some(waiting)
            }
            let idle = max(lastUse.addingTimeInterval(quietAfterWrite), checkable)
            guard Date() < idle else { return .some(nil) }
            // Notifications handed over wait for the gap only, not for a write's quiet time.
            _ = condition.wait(until: handedOver == nil ? idle : checkable)
        }
        return nil
    }

    /// Waits `seconds`, or less if stopped meanwhile.
    private func pause(seconds: TimeInterval) {
        condition.withLock {
            let end = Date().addingTimeInterval(seconds)
            while !stopped, Date() < end { _ = condition.wait(until: end) }
        }
    }

    /// Stops listening; returns once the thread has ended (at most one wait on the socket).
    func stop() {
        let first = condition.withLock {
            defer { stopped = true; condition.broadcast() }
            return !stopped
        }
        if first { _ = finished.wait(timeout: .now() + 2) }
    }

    deinit { stop() }
}
