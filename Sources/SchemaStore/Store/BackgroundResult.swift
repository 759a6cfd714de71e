import Dispatch

/// A value computed on another thread while the caller goes on with other work, and waits
/// for it (``value()``) only when it needs it: a big write's batches go to the server this
/// way while the next ones are built (``SentBatch``), and its commit is described while its
/// rows are written.
final class BackgroundResult<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// Written by the working thread before it signals `done`, read after waiting for it.
    private var result: Result<Value, any Error>?

    /// Starts `work` on another thread.
    init(_ work: @escaping @Sendable () throws -> Value) {
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            result = Result { try work() }
            done.signal()
        }
    }

    /// Waits for the work to end; returns its value or throws its error. Called once.
    func value() throws -> Value {
        done.wait()
        return try result!.get()
    }
}
