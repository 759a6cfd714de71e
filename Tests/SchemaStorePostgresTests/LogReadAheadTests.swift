import ChatModels
import ChatWorkloads
import Foundation
import SchemaRuntime
@_spi(StoreServer) @_spi(SchemaStoreTesting) @testable import SchemaStore
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// A write asked to read the log with its commit (``StoreBackend/readLogWithCommits(after:)``)
/// begins the next read transaction in its own round trip, behind its `COMMIT`, and reads
/// the log there: a resident store following the log right after a stale write
/// (``Store/followToOwnCommit()``) reads only the rows then. A catch-up reads the log with the
/// last commit alike (``StoreBackend/externalCommitCounterAndFingerprint(readingLogAfter:)``).
/// Checked on the backend itself (what the transaction sees, and that one left unused never
/// outlives the next use of the connection) and through a store (the round trips of a
/// follow, and no transaction left open).
@Suite(.serialized) struct LogReadAheadTests {
    struct NotAServer: Error {}

    /// A backend of its own on the database of `configuration`, whose tables a store made.
    static func backend(_ configuration: PostgresConnection.Configuration) throws -> PostgreSQLBackend {
        guard case .server(let server) = Store.Location.postgres(configuration) else { throw NotAServer() }
        let backend = try PostgreSQLBackend(server, readOnly: false, lockTimeout: 2)
        // As a writer's open finds it (the log's sets of entries exist).
        backend.logHasSetColumns = true
        return backend
    }

    /// A commit of `backend` whose one log entry names user `id`.
    static func commit(_ backend: PostgreSQLBackend, _ id: String) throws {
        let done: Void? = try backend.transactionNumberedOnServer { transaction in
            _ = try transaction.appendCommit([CommitLog.Entry(kind: .row, name: "User", id: .text(id))])
        }
        #expect(done != nil)
    }

    /// The ids the log names after `commit`, read in a read transaction of `backend`, and
    /// how many round trips that took.
    static func logged(_ backend: PostgreSQLBackend, after commit: Int64) throws -> (ids: [StoredValue], roundTrips: Int) {
        let before = backend.roundTrips
        let ids = try backend.readTransaction { try backend.commits(after: commit).map(\.entry.id) }
        return (ids, backend.roundTrips - before)
    }

    /// The read transaction the write began holds the state right after its commit: a commit
    /// another connection makes before the store reads is not in it (rows read in it agree
    /// with the log read), and reading the log there costs no round trip.
    @Test func theReadTransactionAWriteBeginsHoldsItsCommit() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("readahead")
        _ = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        let backend = try Self.backend(configuration), other = try Self.backend(configuration)
        defer { backend.close(); other.close() }
        try Self.commit(backend, "u1")
        let last = try #require(try backend.lastCommit())
        backend.readLogWithCommits(after: last)
        try Self.commit(backend, "u2")
        try Self.commit(other, "u3")
        let read = try Self.logged(backend, after: last)
        #expect(read.ids == [.text("u2")])
        #expect(read.roundTrips == 0)
        // The next read transaction begins as any other, and sees the other's commit.
        backend.readLogWithCommits(after: nil)
        let next = try Self.logged(backend, after: last)
        #expect(next.ids == [.text("u2"), .text("u3")])
        #expect(next.roundTrips == 1)
    }

    /// A read transaction begun by a write and not joined ends before the connection's next
    /// use: the next write is not caught in it (it would be read-only), a check outside any
    /// transaction sees the latest commit, and a read transaction asking for the log after
    /// another commit than the one read ahead reads it anew, in its own snapshot.
    @Test func aReadTransactionLeftUnusedEndsWithTheNextUse() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("readaheadunused")
        _ = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        let backend = try Self.backend(configuration), other = try Self.backend(configuration)
        defer { backend.close(); other.close() }
        let first = try #require(try backend.lastCommit())
        backend.readLogWithCommits(after: first)
        try Self.commit(backend, "u1")
        // Another write, then a check outside a transaction, each after a read ahead.
        try Self.commit(backend, "u2")
        try Self.commit(other, "u3")
        #expect(try backend.lastCommit() == first + 3)
        try Self.commit(backend, "u4")
        let read = try Self.logged(backend, after: first + 1)
        #expect(read.ids == [.text("u2"), .text("u3"), .text("u4")])
        // Not the log read ahead (after `first`): read anew in the snapshot, in one round trip.
        #expect(read.roundTrips == 1)
        // The write's own transaction never joined one: every commit is there for another.
        let seen = try other.readTransaction { try other.commits(after: first).map(\.entry.id) }
        #expect(seen == ["u1", "u2", "u3", "u4"].map { StoredValue.text($0) })
    }

    /// How many connections to the database of `configuration` are idle in a transaction,
    /// once that is 0 or after 2 seconds (a `ROLLBACK` sent without waiting may still be on
    /// its way).
    static func idleInTransaction(_ configuration: PostgresConnection.Configuration) throws -> Int64 {
        let admin = try PostgresConnection(configuration)
        defer { admin.close() }
        var count: Int64 = -1
        for _ in 0..<40 {
            let rows = try admin.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND state LIKE 'idle in transaction%'",
                                         [.text(configuration.database)])
            guard case .integer(let found)? = rows.first?.first else { return -1 }
            count = found
            if count == 0 { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return count
    }

    /// A resident store's catch-up reads the last commit, the fingerprint and the log in one
    /// round trip, then the rows the log names in the same snapshot: two round trips, where
    /// it took three. With nothing to follow, it takes one and leaves no transaction open.
    @Test func aCatchUpReadsTheLogWithTheLastCommit() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, other, configuration) = try StaleResidentWriteTests.stores(cluster, "readaheadcatchup")
        try other.write { try Message(id: "m2", text: "second", author: .id("u1"), chat: .id("c1")).save(to: &$0) }
        try other.write { try User(id: "u1", name: "Ann B.").save(to: &$0) }
        let followed = store.catchUps.followed
        var before = store.serverRoundTrips
        try store.refresh()
        #expect(store.serverRoundTrips - before == 2)
        #expect(store.catchUps.followed == followed + 1)
        #expect(User.query("u1", in: store.context).resolve()?.name == "Ann B.")
        let reopened = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .resident))
        #expect(try ChatGraphText.of(reopened.context) == ChatGraphText.of(store.context))
        before = store.serverRoundTrips
        try store.refresh()
        #expect(store.serverRoundTrips - before == 1)
        #expect(try Self.idleInTransaction(configuration) == 0)
        // The store writes on as before (no read-only transaction left to catch its write).
        try store.write { try Message(id: "m3", text: "third", author: .id("u1"), chat: .id("c1")).save(to: &$0) }
        #expect(try other.read { Message.query("m3", in: $0).resolve()?.text } == "third")
    }

    /// A resident store's stale write follows the log to its commit in one round trip (the
    /// rows): the log came with its commit. Its graph equals one loaded anew.
    @Test func aStaleWriteFollowsToItsCommitReadingOnlyTheRows() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, other, configuration) = try StaleResidentWriteTests.stores(cluster, "readaheadstale")
        try other.write { try Message(id: "m2", text: "second", author: .id("u1"), chat: .id("c1")).save(to: &$0) }
        let before = store.serverRoundTrips
        try store.write { try Message(id: "m3", text: "third", author: .id("u1"), chat: .id("c1")).save(to: &$0) }
        #expect(store.staleWriteStatistics.writesAssumingNew == 1)
        #expect(store.serverRoundTrips - before == 1)
        #expect(store.catchUps.followed == 1)
        let reopened = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .resident))
        #expect(try ChatGraphText.of(reopened.context) == ChatGraphText.of(store.context))
    }
}
