/// What a write that reads the database as it runs (``OnDemandWrite``) needs from its store:
/// a store reading on demand (``OnDemandReading``), and a resident store on a server running a
/// stale write again that way (``StaleWriteReading``).
protocol OnDemandWriting: AnyObject, Sendable {
    /// Where each relation slot's links are read from.
    var links: LinkLookup { get }
    /// Opens a read-only connection, for a context that outlives the write.
    var connect: () throws -> any SnapshotConnection { get }
    /// What the store's writes count and learn.
    var writes: OnDemandWrites { get }
}
