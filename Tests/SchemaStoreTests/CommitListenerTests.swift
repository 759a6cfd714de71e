import Foundation
@testable import SchemaStore
import Testing

/// `CommitListener`: after a write used the connection it leaves it alone for its quiet
/// time (the write's own answers would wake it); after a check it reads again at once, or a
/// store that only follows others' commits would hear of them once per quiet time at most.
/// The quiet time here is 30 s, so the counts below cannot come from its end. Checks
/// handed over within the gap after a check wait for its end (not for a write's quiet
/// time), and go as one.
@Suite struct CommitListenerTests {
    /// Counts the listener's reads of the idle connection (each finds nothing and no socket:
    /// the listener waits 0.2 s and reads again).
    final class IdleReads: @unchecked Sendable {
        private let lock = NSLock()
        private var reads = 0
        var count: Int { lock.withLock { reads } }
        func read() -> ReceivedCommits? {
            lock.withLock { reads += 1 }
            return ReceivedCommits.none
        }
    }

    /// How many more idle reads the listener made over `seconds`, while `meanwhile` ran
    /// every 50 ms.
    static func reads(_ idle: IdleReads, over seconds: Double, meanwhile: () -> Void) -> Int {
        let before = idle.count
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            meanwhile()
            Thread.sleep(forTimeInterval: 0.05)
        }
        return idle.count - before
    }

    @Test func checksLeaveTheConnectionToTheListenerAndWritesQuiet() {
        let idle = IdleReads()
        let listener = CommitListener(readIdle: { idle.read() }, quiet: 30, onCommit: { _ in })
        defer { listener.stop() }
        // Checks every 50 ms: the listener goes on reading (every 0.2 s).
        let whileChecking = Self.reads(idle, over: 1.2) { listener.connectionUsed(nil, seen: 0, byWrite: false) }
        #expect(whileChecking >= 3)
        // One write: the listener reads no more (but for a read under way as it came).
        listener.connectionUsed(nil, seen: 0, byWrite: true)
        let afterAWrite = Self.reads(idle, over: 1.2) {}
        #expect(afterAWrite <= 1)
    }

    /// Records the checks the listener runs.
    final class Checks: @unchecked Sendable {
        private let lock = NSLock()
        private var ran: [NotifiedCommits.Waiting] = []
        var all: [NotifiedCommits.Waiting] { lock.withLock { ran } }
        func run(_ waiting: NotifiedCommits.Waiting) { lock.withLock { ran.append(waiting) } }
    }

    @Test func checksHandedOverWithinTheGapGoAsOne() {
        let checks = Checks()
        let listener = CommitListener(readIdle: { nil }, quiet: 30, checkGap: 1, onCommit: { checks.run($0) })
        defer { listener.stop() }
        func handOver(_ commit: Int64) {
            let received = ReceivedCommits(commits: .upTo(commit), count: 1, socket: -1)
            listener.connectionUsed(received, seen: 0, byWrite: false)
        }
        handOver(1)
        // The first check runs at once; the next three come within the gap after it.
        let start = Date()
        while checks.all.isEmpty, Date() < start.addingTimeInterval(5) { Thread.sleep(forTimeInterval: 0.01) }
        #expect(checks.all == [.upTo(1)])
        for commit in 2...4 as ClosedRange<Int64> { handOver(commit) }
        Thread.sleep(forTimeInterval: 0.3)
        #expect(checks.all.count == 1)
        while checks.all.count < 2, Date() < start.addingTimeInterval(5) { Thread.sleep(forTimeInterval: 0.01) }
        #expect(checks.all == [.upTo(1), .upTo(4)])
        // Handed over by a write (whose quiet time is 30 s): checked after the gap only.
        listener.connectionUsed(ReceivedCommits(commits: .upTo(5), count: 1, socket: -1), seen: 0, byWrite: true)
        while checks.all.count < 3, Date() < start.addingTimeInterval(8) { Thread.sleep(forTimeInterval: 0.01) }
        #expect(checks.all == [.upTo(1), .upTo(4), .upTo(5)])
    }
}
