/// How a resident store on a server runs a write again once its first run found another
/// store's commit first (``Store/write(_:)``): as a write on demand (``OnDemandWrite``), which
/// takes what it loads for new while that holds, else reads what it touches before it takes
/// the write lock and commits if no other commit changed it (``WriteAttemptPolicy``). Its
/// graph then follows the log to its commit.
final class StaleWriteReading: OnDemandWriting, @unchecked Sendable {
    let links: LinkLookup
    /// Set once, called by the store's writes one at a time.
    let connect: () throws -> any SnapshotConnection
    let writes = OnDemandWrites()

    init(links: LinkLookup, connect: @escaping () throws -> any SnapshotConnection) {
        self.links = links
        self.connect = connect
    }
}
