import Foundation

/// How a resident store on a server runs a write again once its first run found another
/// store's commit first (``Store/write(_:)``): as a write on demand (``OnDemandWrite``), which
/// takes what it loads for new while that holds (``AssumeNewPolicy``), else reads what it
/// touches before it takes the write lock and commits if no other commit changed it. Its
/// graph then follows the log to its commit.
final class StaleWriteReading: OnDemandWriting, @unchecked Sendable {
    let links: LinkLookup
    let connect: () throws -> any SnapshotConnection
    /// Under `lock`.
    private var assumeNew = AssumeNewPolicy()
    private var counted = OnDemandStatistics()
    private let lock = NSLock()

    init(links: LinkLookup, connect: @escaping () throws -> any SnapshotConnection) {
        self.links = links
        self.connect = connect
    }

    /// What these writes did: ``OnDemandStatistics/writesAssumingNew``,
    /// ``OnDemandStatistics/writesReadingUnlocked`` and their retries, and their statements.
    var statistics: OnDemandStatistics { lock.withLock { counted } }

    func writeAssumesNew() -> Bool {
        lock.withLock { assumeNew.assumes() }
    }

    func recordAssumption(held: Bool) {
        lock.withLock {
            assumeNew.record(held: held)
            counted.writesAssumingNew += 1
            if !held { counted.writesAssumingNewRetried += 1 }
        }
    }

    func recordUnlockedReads(held: Bool) {
        lock.withLock {
            counted.writesReadingUnlocked += 1
            if !held { counted.writesReadingUnlockedRetried += 1 }
        }
    }

    func recordWrite(statements: (count: Int, reads: Int)) {
        lock.withLock {
            counted.writes += 1
            counted.writeStatements += statements.count
            counted.writeReads += statements.reads
        }
    }
}
