import Dispatch

/// A write's pending statements going to the server on another thread while the writer's
/// thread builds the next ones: in a big write, the client's work (the rows, their column
/// arrays) and the server's (inserting them) overlap instead of taking turns.
///
/// At most one is in flight per connection, and nothing else uses the connection until it
/// was answered (``finish()``): the connection stays used by one thread at a time, and the
/// statements run in the order they were written.
final class SentBatch: @unchecked Sendable {
    private let answered = DispatchSemaphore(value: 0)
    /// Written by the sending thread before it signals `answered`, read after waiting for it.
    private var failure: (any Error)?

    /// Starts sending `writes` on `connection`, which the caller leaves alone until ``finish()``.
    init(_ writes: PendingWrites, on connection: any ServerConnection) {
        let connection = UncheckedConnection(connection)
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            do {
                try connection.value.send(writes.steps())
            } catch {
                failure = error
            }
            answered.signal()
        }
    }

    /// Waits until the server answered every statement; throws the first failure. Called
    /// once.
    func finish() throws {
        answered.wait()
        if let failure { throw failure }
    }
}

/// A connection handed to the thread sending a ``SentBatch``: the writer's thread does not
/// touch it until the batch is answered, so one thread at a time uses it.
private struct UncheckedConnection: @unchecked Sendable {
    let value: any ServerConnection
    init(_ value: any ServerConnection) { self.value = value }
}
