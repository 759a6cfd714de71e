import Foundation

/// Where the snapshot of a ``Store/read(_:)`` scope keeps a read that failed (an I/O error,
/// a row that no longer decodes, a server gone), so that the scope throws it instead of the
/// process stopping. While open, a failed read answers empty and the first failure is kept;
/// once the scope ended, a context that escaped it reads as any other: a failure stops the
/// process, since nothing would throw it any more and its answer would be wrong.
final class ReadFailures: @unchecked Sendable {
    private let lock = NSLock()
    private var first: (any Error)?
    private var isOpen = true

    /// Keeps `error` if the scope is open (returns true), else returns false.
    func record(_ error: any Error) -> Bool {
        lock.withLock {
            guard isOpen else { return false }
            if first == nil { first = error }
            return true
        }
    }

    /// Ends the scope; the first failure, if any.
    func close() -> (any Error)? {
        lock.withLock {
            isOpen = false
            return first
        }
    }
}
