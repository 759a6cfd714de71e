/// What a write that reads the database as it runs (``OnDemandWrite``) needs from its store,
/// and what it tells it: a store reading on demand (``OnDemandReading``), and a resident store
/// on a server running a stale write again that way (``StaleWriteReading``).
protocol OnDemandWriting: AnyObject, Sendable {
    /// Where each relation slot's links are read from.
    var links: LinkLookup { get }
    /// Opens a read-only connection, for a context that outlives the write.
    var connect: () throws -> any SnapshotConnection { get }
    /// Whether the next write assumes the entities it loads are new (``AssumeNewPolicy``).
    func writeAssumesNew() -> Bool
    /// Counts a write that assumed the entities it loaded were new: whether that held.
    func recordAssumption(held: Bool)
    /// Counts a run of a write that read before the write lock: whether its reads held.
    func recordUnlockedReads(held: Bool)
    /// Counts a write's statements.
    func recordWrite(statements: (count: Int, reads: Int))
}
