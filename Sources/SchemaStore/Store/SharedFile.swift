import Foundation

/// What a store knows of the other connections to its file (other ``Store``s, in this
/// process or others): the commit counter its graph reflects, the schema the file had when
/// the store opened, and the timer that checks for their commits.
///
/// Everything but the timer is read and written only under the store's write lock.
final class SharedFile: @unchecked Sendable {
    /// The backend's external commit counter when the current graph was loaded.
    var seenCounter: Int64
    /// The last ``CommitLog`` commit the current graph holds.
    var seenCommit: Int64
    /// The schema fingerprint the file recorded when the store opened.
    let fingerprint: String?
    /// Set once another connection migrated the file to another schema: the store keeps its
    /// last graph and refuses writes.
    var failure: StoreError?
    /// How often other stores' commits were followed from the log, and how often the graph
    /// was loaded again instead (tests and benchmarks check which path ran).
    var followed = 0, reloaded = 0
    /// How many links of to-many lists following the log read (tests check that a list
    /// appended to is not read whole).
    var listLinksRead = 0
    /// How many rows following the log read (tests check that rows a commit only relinked
    /// are not read).
    var rowsRead = 0
    /// For a store reading on demand: whether it follows the log for its observers, from
    /// ``seenCommit`` (`Store.deliverOnDemandCommits()`).
    var followsOnDemand = false

    /// The commit notifications not checked yet (a database that notifies them).
    let notified = NotifiedCommits()

    private let timerLock = NSLock()
    private var timer: (any DispatchSourceTimer)?
    /// For a database that notifies its commits: the listener that checks at once.
    private var listener: CommitListener?

    /// Checks whenever the listener `makeListener` makes hears of a commit; stopped with the
    /// polling. Does nothing while one listens already.
    func startListening(_ makeListener: () -> CommitListener?) -> Bool {
        timerLock.withLock {
            if listener == nil { listener = makeListener() }
            return listener != nil
        }
    }

    /// How many commit notifications the listener received (0 without one).
    var notificationsReceived: Int { timerLock.withLock { listener }?.notificationsReceived ?? 0 }

    /// Hands the listener what a write or a check received on the connection (taken under
    /// the write lock, with `seen`, the last commit the store then held); called after the
    /// write lock is released. `byWrite`: a write's use, after which the listener leaves the
    /// connection alone a while (``CommitListener/quiet``).
    func connectionUsed(_ received: ReceivedCommits?, seen: Int64, byWrite: Bool) {
        guard let listener = timerLock.withLock({ listener }) else { return }
        if listener.connectionUsed(received, seen: seen, byWrite: byWrite) { notified.countSkipped() }
    }

    /// Nil for a backend no other connection can open.
    init?(backend: any StoreBackend) throws {
        guard let counter = try backend.externalCommitCounter() else { return nil }
        seenCounter = counter
        seenCommit = try backend.lastCommit() ?? 0
        fingerprint = try backend.recordedFingerprint()
    }

    /// Calls `check` every `interval` seconds, on a background queue, until ``stopPolling()``;
    /// does nothing while it polls already.
    func startPolling(every interval: TimeInterval, _ check: @escaping @Sendable () -> Void) {
        guard timerLock.withLock({ self.timer == nil }) else { return }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        let nanoseconds = Int(interval * 1_000_000_000)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds), repeating: .nanoseconds(nanoseconds), leeway: .nanoseconds(nanoseconds / 5))
        timer.setEventHandler(handler: check)
        timerLock.withLock { self.timer = timer }
        timer.resume()
    }

    func stopPolling() {
        let (timer, listener) = timerLock.withLock {
            defer { self.timer = nil; self.listener = nil }
            return (self.timer, self.listener)
        }
        timer?.cancel()
        listener?.stop()
    }

    deinit { stopPolling() }
}
