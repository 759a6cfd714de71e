import ChatModels
import Foundation
import SchemaRuntime
@_spi(SchemaStoreTesting) @testable import SchemaStore
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// Commits other stores can see before they are on disk (`Store.CommitVisibility`), and
/// commits a crash of the server loses after stores read them.
///
/// The server's log writer is paused before the commits a crash should lose, so that they
/// stay in the server's memory; the crash (SIGKILL to the log writer) loses them. Each test
/// shows that its crash lost such a commit.
@Suite(.serialized) struct LostCommitTests {
    static func cluster() throws -> TemporaryPostgresCluster? { try PostgresDialectTests.cluster() }

    /// The users `configuration`'s database holds, read past any store.
    static func storedUsers(_ configuration: PostgresConnection.Configuration) throws -> Set<String> {
        let connection = try PostgresConnection(configuration)
        defer { connection.close() }
        return Set(try connection.execute("SELECT id FROM \"User\"").compactMap { row in if case .text(let id) = row[0] { id } else { nil } })
    }

    /// A new database holding user "base", on disk, whose later commits (of connections
    /// opened after this returns) do not wait for their flush: a crash while the log writer
    /// is paused loses them.
    static func databaseLosingUnflushedCommits(_ cluster: TemporaryPostgresCluster, _ name: String) throws -> PostgresConnection.Configuration {
        let configuration = try cluster.createDatabase(name)
        let setUp = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        try setUp.write { try User(id: "base", name: "kept").save(to: &$0) }
        setUp.close()
        let admin = try PostgresConnection(cluster.configuration())
        defer { admin.close() }
        try admin.execute("ALTER DATABASE \"\(name)\" SET synchronous_commit = off")
        // Flushes everything so far (the log is the cluster's): only what follows is lost.
        try admin.execute("SELECT pg_logical_emit_message(true, 'test', '')")
        return configuration
    }

    /// A write whose commit others may see before its flush returns once that flush is done:
    /// a crash right after it keeps it (and loses a commit made after it without a flush).
    @Test func aWriteVisibleBeforeItsFlushReturnsOnceItIsOnDisk() throws {
        guard let cluster = try Self.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("beforeflush")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self,
                              options: Store.Options(residency: .resident, commitVisibility: .beforeFlush))
        // Not a store's table: made once the database is one.
        let control = try PostgresConnection(configuration)
        defer { control.close() }
        try control.execute("CREATE TABLE control (a integer)")
        try cluster.pauseLogWriter()
        try store.write { try User(id: "durable", name: "written before the crash").save(to: &$0) }
        // Committed after it without waiting for a flush: the crash must lose this one.
        _ = try control.executeEach([("BEGIN", []), ("SET LOCAL synchronous_commit = off", []), ("INSERT INTO control VALUES (1)", []), ("COMMIT", [])])
        try cluster.crashServer()
        let after = try PostgresConnection(configuration)
        defer { after.close() }
        #expect(try after.execute("SELECT count(*) FROM control").first?.first == .integer(0), "the crash lost nothing")
        #expect(try Self.storedUsers(configuration) == ["durable"], "the write returned before its commit was flushed")
        store.close()
    }

    /// Stores read a commit, which a crash of the server then loses; the next writer must
    /// not give its number to another commit, else a follower would keep the lost commit's
    /// rows and miss the new one's, and an on-demand store would answer from rows it kept
    /// for the lost one. Every commit of this database is made without waiting for its
    /// flush (`synchronous_commit = off`), as a standby promoted while it lagged, or
    /// `.beforeFlush` stores in the instant before their flush, would have it.
    @Test func aCommitTheServerLostAfterStoresReadItIsNotTakenForTheNextOne() async throws {
        guard let cluster = try Self.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.databaseLosingUnflushedCommits(cluster, "lost")
        let writer = try Store(.postgres(configuration), schema: ChatModelsSchema.self)

        let follower = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        follower.stopFollowingInTheBackground()
        // Its live query may run while the server recovers: answered empty then, not stopping the tests.
        let onDemand = try Store(.postgres(configuration), schema: ChatModelsSchema.self,
                                 options: Store.Options(residency: .onDemand, contextReadFailure: .answerEmpty { _ in }))
        // A live query on demand: runs again on the server when the log says its tables changed.
        let observed = Observed()
        let observing = Task { for await users in onDemand.observe(User.query().sorted(by: \.name)) { observed.set(Set(users.map(\.id))) } }
        defer { observing.cancel() }
        #expect(await observed.becomes(["base"]))
        let lostWriter = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        try cluster.pauseLogWriter()
        try await lostWriter.write { try User(id: "ghost", name: "lost in the crash").save(to: &$0) }
        try follower.refresh()
        #expect(User.query("ghost", in: follower.context).resolve() != nil)
        #expect(try await onDemand.read { User.query("ghost", in: $0).resolve() } != nil)
        #expect(await observed.becomes(["base", "ghost"]))

        try cluster.crashServer()
        try #require(try Self.storedUsers(configuration) == ["base"], "the crash did not lose the commit")
        // A store opened after the crash writes first (the others connect again after it).
        let opened = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        try await opened.write { try User(id: "after", name: "written after the crash").save(to: &$0) }

        for (name, store) in [("follower", follower), ("the lost commit's writer", lostWriter), ("another writer", writer)] {
            try store.refresh()
            #expect(Set(store.context.ids(of: User.self)) == ["base", "after"], "\(name)")
        }
        let read = try await onDemand.read { context in
            (ghost: User.query("ghost", in: context).resolve(), after: User.query("after", in: context).resolve())
        }
        #expect(read.ghost == nil && read.after != nil, "the on-demand store answered from rows of the lost commit")
        #expect(await observed.becomes(["base", "after"]), "the live query holds \(observed.value)")
        // The lost commit's writer writes again on its graph, which held the lost commit.
        try await lostWriter.write { try User(id: "later", name: "written by the lost commit's writer").save(to: &$0) }
        #expect(try Self.storedUsers(configuration) == ["base", "after", "later"])
        // The numbering went on past a gap.
        let last = try PostgresConnection(configuration)
        defer { last.close() }
        let number = try last.execute("SELECT max(\"commit\") FROM \"schemagen:commits\"").first?.first
        if case .integer(let value)? = number { #expect(value > PostgreSQLBackend.numbersSkippedAfterLoss) } else { Issue.record("no commit: \(String(describing: number))") }
        for store in [writer, follower, onDemand, lostWriter, opened] { store.close() }
    }

    /// The gap after a first crash is flushed before any commit past it: a second crash,
    /// losing the commits past it, keeps it, so the next gap starts past their numbers.
    /// Else that gap would start where the first did, and a follower that read a lost commit
    /// would take the next commit, numbered as it was, for the one it has.
    @Test func aGapOutlivesTheCommitsPastItThatASecondCrashLoses() throws {
        guard let cluster = try Self.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.databaseLosingUnflushedCommits(cluster, "twocrashes")
        let writer = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        let follower = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        follower.stopFollowingInTheBackground()

        try cluster.pauseLogWriter()
        try writer.write { try User(id: "first", name: "lost in the first crash").save(to: &$0) }
        try cluster.crashServer()
        // The writer's new connection makes the gap, then a commit past it, both left in
        // the server's memory unless flushed; the follower reads them.
        try cluster.pauseLogWriter()
        try writer.write { try User(id: "second", name: "lost in the second crash").save(to: &$0) }
        try follower.refresh()
        #expect(Set(follower.context.ids(of: User.self)) == ["base", "second"])
        try cluster.crashServer()
        try #require(try Self.storedUsers(configuration) == ["base"], "the second crash did not lose the commit past the gap")

        try writer.write { try User(id: "third", name: "written after the second crash").save(to: &$0) }
        try follower.refresh()
        #expect(Set(follower.context.ids(of: User.self)) == ["base", "third"])
        for store in [writer, follower] { store.close() }
    }
}

extension LostCommitTests {
    /// A role that may not write the log record a write visible before its flush waits
    /// with is told so when the store opens, before it writes anything: else its writes
    /// would commit, then fail.
    @Test func aRoleThatMayNotWaitForTheFlushIsToldAtOpen() throws {
        guard let cluster = try Self.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("nomessage", ownedByNewRole: "limited", revoking: "pg_logical_emit_message(boolean, text, text)")
        let admin = try PostgresConnection(cluster.configuration(database: "nomessage"))
        defer { admin.close() }
        do {
            _ = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: .init(commitVisibility: .beforeFlush))
            Issue.record("a store that cannot wait for its commits' flush opened")
        } catch let StoreError.cannotOpen(_, reason) {
            #expect(reason.contains("pg_logical_emit_message") && reason.contains(".afterFlush"), "\(reason)")
        }
        #expect(try admin.execute("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'").first?.first == .integer(0), "the refused open wrote tables")
        // The default needs no such right.
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        try store.write { try User(id: "u1", name: "Ann").save(to: &$0) }
        store.close()
    }

    /// A store's connection replaced between writes checks the numbering without the
    /// writers' lock: a store that only reads (here its refresh) waits for no writer, even
    /// one holding the lock past the store's lock timeout.
    @Test func aConnectionReplacedBetweenWritesWaitsForNoWriter() throws {
        guard let cluster = try Self.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("replaced")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(lockTimeout: 0.3, residency: .resident))
        store.stopFollowingInTheBackground()
        try store.write { try User(id: "u1", name: "before").save(to: &$0) }
        let admin = try PostgresConnection(cluster.configuration())
        defer { admin.close() }
        try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'replaced' AND pid <> pg_backend_pid()")
        #expect(PostgresCommitListenerTests.eventually { (try? PostgresCommitListenerTests.connections(to: "replaced", admin).isEmpty) == true })
        // Another writer holds the lock for longer than the store waits for it.
        let holder = try PostgresConnection(configuration)
        defer { holder.close() }
        _ = try holder.executeEach([("BEGIN", []), ("SELECT pg_advisory_xact_lock($1)", [.integer(PostgreSQLBackend.writeLock)])])
        #expect(throws: Never.self) { try store.refresh() }
        #expect(throws: StoreError.self) { try store.write { try User(id: "u2", name: "waits for the lock").save(to: &$0) } }
        try holder.execute("COMMIT")
        try store.write { try User(id: "u3", name: "after").save(to: &$0) }
        #expect(Set(store.context.ids(of: User.self)) == ["u1", "u3"])
        store.close()
    }
}

/// The last value a live query gave, set by the task that follows it.
final class Observed: @unchecked Sendable {
    private let lock = NSLock()
    private var latest: Set<String> = []

    var value: Set<String> { lock.withLock { latest } }
    func set(_ value: Set<String>) { lock.withLock { latest = value } }

    /// Whether the value becomes `expected` within a minute. Waits without holding a
    /// thread: the live query runs on the same pool of threads as the tests, which a full
    /// run keeps busy.
    func becomes(_ expected: Set<String>) async -> Bool {
        for _ in 0..<1200 {
            if value == expected { return true }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        return value == expected
    }
}
