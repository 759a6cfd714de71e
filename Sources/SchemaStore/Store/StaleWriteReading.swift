/// What a resident store on a server needs to run a write again reading from the database,
/// once its first run found another store's commit first (``Store/write(_:)``): the write
/// then reads what it touches through SQL before it takes the write lock, as a write on
/// demand does (``OnDemandWrite``), and commits if no other commit changed what it read.
struct StaleWriteReading {
    /// Where each relation slot's links are read from.
    let links: LinkLookup
    /// Opens a read-only connection, for a context that outlives the write.
    let connect: () throws -> any SnapshotConnection
}
