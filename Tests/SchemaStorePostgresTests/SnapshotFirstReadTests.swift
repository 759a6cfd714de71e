import ChatModels
import Foundation
import SchemaRuntime
@_spi(SchemaStoreTesting) @testable import SchemaStore
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// A `read` scope of a store reading a server on demand takes its snapshot with its first
/// query, in that query's round trip (``OnDemandSnapshot``, `firstRead`): the `BEGIN` and
/// the snapshot's state (fingerprint, last commit) go with it, and are checked once answered.
@Suite(.serialized) struct SnapshotFirstReadTests {
    /// A store on demand, seeded (`AssumedNewWriteTests.seed`), and its database.
    static func seeded(_ cluster: TemporaryPostgresCluster, _ name: String) throws -> (Store, PostgresConnection.Configuration) {
        let (store, configuration) = try AssumedNewWriteTests.store(cluster, name)
        try AssumedNewWriteTests.seed(store)
        return (store, configuration)
    }

    /// One round trip for a scope of one query after a commit (two before), and the scope
    /// still sees one state: a commit made after its first query is not seen by the second.
    /// The second scope starts from the rows the first kept, taking their commit for its
    /// own, finds it was not, and reads again (two round trips); after that, scopes start
    /// from no kept rows for a while (``WriteAttemptPolicy``).
    @Test func aReadScopeTakesItsSnapshotWithItsFirstQuery() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, configuration) = try Self.seeded(cluster, "firstread")
        let other = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        var roundTrips: [Int] = []
        for round in 1...4 {
            try other.write { try User(id: "u1", name: "Ann \(round)").save(to: &$0) }
            let before = store.onDemandStatistics.roundTrips
            let name = try store.read { User.query("u1", in: $0).resolve()?.name }
            #expect(name == "Ann \(round)")
            roundTrips.append(store.onDemandStatistics.roundTrips - before)
        }
        #expect(roundTrips == [1, 2, 1, 1])
        try other.write { try User(id: "u1", name: "Ann 3").save(to: &$0) }
        let before = store.onDemandStatistics.roundTrips
        let names = try store.read { context in
            let first = User.query("u1", in: context).resolve()?.name
            try other.write { try User(id: "u1", name: "Ann 4").save(to: &$0) }
            return [first, Chat.query("c1", in: context).resolve()?.title, User.query(in: context).resolve().first?.name]
        }
        #expect(names == ["Ann 3", "general", "Ann 3"])
        #expect(store.onDemandStatistics.roundTrips - before == 3)
        #expect(try store.read { User.query("u1", in: $0).resolve()?.name } == "Ann 4")
    }

    /// Scopes of one commit: the second starts from the rows the first kept, which answer
    /// what its query follows (only the row its id names is read again, as on a file), and
    /// its snapshot is taken with that read: one statement, one round trip.
    @Test func aReadScopeOfTheSameCommitStartsFromTheRowsTheLastOneKept() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, configuration) = try Self.seeded(cluster, "firstreadkept")
        let nested: @Sendable (Context) -> String = { "\(Chat.query(["c1"], in: $0).with(\.$messages) { $0.with(\.$author) }.resolve())" }
        let first = try store.read(nested)
        #expect(first.contains("first") && first.contains("Ann"))
        let before = store.onDemandStatistics
        #expect(try store.read(nested) == first)
        let after = store.onDemandStatistics
        #expect(after.statements - before.statements == 1 && after.roundTrips - before.roundTrips == 1, "\(before) \(after)")
        // Another store's commit: the next scope starts from the kept rows, finds them of
        // another commit, and reads again.
        let other = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        try other.write { try User(id: "u1", name: "Ann B.").save(to: &$0) }
        #expect(try store.read(nested).contains("Ann B."))
    }

    /// Another store's migration (the recorded fingerprint changed) found by a scope's first
    /// query: the scope answers empty, as every context after it, and writes throw.
    @Test func aReadScopeFindingAnotherSchemaAnswersEmpty() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, configuration) = try Self.seeded(cluster, "firstreadmigrated")
        #expect(try store.read { User.query(in: $0).resolve().map(\.id) } == ["u1"])
        let admin = try PostgresConnection(configuration)
        defer { admin.close() }
        try admin.execute("UPDATE \(PostgreSQLBackend.metaTable) SET value = 'another' WHERE key = $1", [.text(StoreMetadataKey.fingerprint)])
        let answers = try store.read { context in
            (User.query(in: context).resolve().map(\.id), Chat.query("c1", in: context).resolve()?.title)
        }
        #expect(answers.0.isEmpty && answers.1 == nil)
        #expect(try store.read { User.query(in: $0).resolve().count } == 0)
        #expect(User.query(in: store.context).resolve().isEmpty)
        #expect(throws: StoreError.self) { try store.write { try User(id: "u2", name: "Bo").save(to: &$0) } }
    }

    /// A scope whose connection the server dropped while it was idle: the first query fails
    /// with the `BEGIN` it carried, and the scope takes its snapshot again on a new one.
    @Test func aReadScopeOnAConnectionTheServerDroppedGoesOnOnANewOne() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, configuration) = try Self.seeded(cluster, "firstreaddropped")
        #expect(try store.read { User.query("u1", in: $0).resolve()?.name } == "Ann")
        let admin = try PostgresConnection(configuration)
        defer { admin.close() }
        try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [.text("firstreaddropped")])
        for _ in 0..<2 {
            let answers = try store.read { context in
                (User.query("u1", in: context).resolve()?.name, Message.query(in: context).resolve().map(\.id))
            }
            #expect(answers.0 == "Ann" && answers.1 == ["m1"])
        }
    }

    /// The snapshot `store.context` shares between commits is taken with its first query
    /// too (after the store's first), and finds another schema there.
    @Test func contextsOfTheStoreTakeTheirSnapshotWithTheirFirstQuery() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, configuration) = try Self.seeded(cluster, "firstreadcontext")
        var roundTrips: [Int] = []
        for round in 1...4 {
            try store.write { try User(id: "u1", name: "Ann \(round)").save(to: &$0) }
            let before = store.onDemandStatistics.roundTrips
            let context = store.context
            #expect(User.query("u1", in: context).resolve()?.name == "Ann \(round)")
            #expect(Chat.query("c1", in: context).resolve()?.title == "general")
            roundTrips.append(store.onDemandStatistics.roundTrips - before)
        }
        // Two queries, two round trips (three before); the second snapshot took the first
        // one's rows for its commit's, and read again.
        #expect(roundTrips == [2, 3, 2, 2])
        let admin = try PostgresConnection(configuration)
        defer { admin.close() }
        try admin.execute("UPDATE \(PostgreSQLBackend.metaTable) SET value = 'another' WHERE key = $1", [.text(StoreMetadataKey.fingerprint)])
        // The commit log tells the store's probe that the database changed.
        try admin.execute("""
            INSERT INTO "\(CommitLog.table)" ("commit", kind, name, id) \
            SELECT coalesce(max("commit"), 0) + 1, 'row', 'User', 't:u1' FROM "\(CommitLog.table)"
            """)
        #expect(User.query(in: store.context).resolve().isEmpty)
        #expect(Chat.query(in: store.context).resolve().isEmpty)
        #expect(try store.read { User.query(in: $0).resolve().count } == 0)
    }
}
