import Foundation

/// How long this process's connections waited for the server's answers, all together:
/// for a profile to tell the client's own time from the server's (`schemastore-bench
/// postgres-profile` prints it per single write). Counted by ``AnswerWait``; a lock
/// taken once per wait, beside waits of tenths of a millisecond.
@_spi(StoreServer)
public enum AnswerWaitTotals {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var waits = 0
    nonisolated(unsafe) private static var nanoseconds: UInt64 = 0

    /// The waits counted so far and their total length (nanoseconds).
    public static var current: (waits: Int, nanoseconds: UInt64) {
        lock.withLock { (waits, nanoseconds) }
    }

    static func count(_ waited: UInt64) {
        lock.withLock {
            waits += 1
            nanoseconds += waited
        }
    }
}
