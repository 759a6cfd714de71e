/// A write's pending statements going to the server on another thread while the writer's
/// thread builds the next ones: in a big write, the client's work (the rows, their column
/// arrays) and the server's (inserting them) overlap instead of taking turns.
///
/// At most one is in flight per connection, and nothing else uses the connection until it
/// was answered (``finish()``): the connection stays used by one thread at a time, and the
/// statements run in the order they were written.
struct SentBatch {
    private let sending: BackgroundResult<Void>

    /// Starts sending `steps` (spelled on the caller's thread) on `connection`, which the
    /// caller leaves alone until ``finish()``.
    init(_ steps: [ServerBatchStep], on connection: any ServerConnection) {
        let connection = UncheckedConnection(connection)
        sending = BackgroundResult { try connection.value.send(steps) }
    }

    /// Waits until the server answered every statement; throws the first failure. Called
    /// once.
    func finish() throws { try sending.value() }
}

/// A connection handed to the thread sending a ``SentBatch``: the writer's thread does not
/// touch it until the batch is answered, so one thread at a time uses it.
private struct UncheckedConnection: @unchecked Sendable {
    let value: any ServerConnection
    init(_ value: any ServerConnection) { self.value = value }
}
