import Foundation

/// Waits, on a connection of its own, for the notifications writers send when they commit
/// (`NOTIFY "schemagen:commits"`, carrying the commit number), and calls `onCommit` with
/// the highest number when some arrived: other stores' commits then reach this one as soon
/// as the server tells it, instead of at its next poll. It listens again on a new connection
/// when it loses one (and calls `onCommit` then with `.unknown`, for what it may have missed
/// meanwhile).
final class CommitListener: @unchecked Sendable {
    /// The channel every writer of a SchemaGen database notifies.
    static let channel = "schemagen:commits"

    private let server: ServerLocation
    private let onCommit: @Sendable (NotifiedCommits.Waiting) -> Void
    private let lock = NSLock()
    private var stopped = false
    private var received = 0
    private let finished = DispatchSemaphore(value: 0)

    init(server: ServerLocation, onCommit: @escaping @Sendable (NotifiedCommits.Waiting) -> Void) {
        self.server = server
        self.onCommit = onCommit
        let thread = Thread { [self] in run() }
        thread.name = "SchemaStore commit listener"
        thread.start()
    }

    /// How many commit notifications arrived.
    var notificationsReceived: Int { lock.withLock { received } }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func run() {
        var connection: (any ServerConnection)?
        while !isStopped {
            do {
                if connection?.isConnected != true {
                    connection?.close()
                    let fresh = try server.connect()
                    try fresh.listen(Self.channel)
                    connection = fresh
                    onCommit(.unknown)
                }
                // Short waits: a stop is noticed within one.
                let payloads = try connection!.waitForNotifications(timeout: 0.2)
                if !payloads.isEmpty {
                    lock.withLock { received += payloads.count }
                    let numbers = payloads.compactMap { Int64($0) }
                    onCommit(numbers.count == payloads.count ? .upTo(numbers.max()!) : .unknown)
                }
            } catch {
                connection?.close()
                connection = nil
                Thread.sleep(forTimeInterval: 0.2)
            }
        }
        connection?.close()
        finished.signal()
    }

    /// Stops listening; returns once the listener's connection is closed (at most one wait).
    func stop() {
        let first = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        if first { _ = finished.wait(timeout: .now() + 2) }
    }

    deinit { stop() }
}
