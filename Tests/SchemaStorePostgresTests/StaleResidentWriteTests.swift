import ChatModels
import ChatWorkloads
import Foundation
import SchemaRuntime
@_spi(SchemaStoreTesting) @testable import SchemaStore
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// A resident store's write that finds another store's commit first (its graph is behind)
/// runs again reading what it touches from the database before the write lock, and commits
/// if no commit changed that meanwhile (``StaleWriteReading``); its graph then follows the
/// log to its commit. Each test makes the store's graph stale with another store's commit
/// (the store follows in the background no more), and commits from inside the closure's
/// later runs, which would wait for the lock until its timeout if the lock were held.
@Suite(.serialized) struct StaleResidentWriteTests {
    struct Missing: Error {}

    /// A resident store that follows other stores' commits only when it writes, and another
    /// store (on demand) on the same fresh, seeded database (`AssumedNewWriteTests.seed`).
    static func stores(_ cluster: TemporaryPostgresCluster, _ name: String) throws -> (resident: Store, other: Store, PostgresConnection.Configuration) {
        let (other, configuration) = try AssumedNewWriteTests.store(cluster, name)
        try AssumedNewWriteTests.seed(other)
        let resident = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(lockTimeout: 2, residency: .resident))
        resident.stopFollowingInTheBackground()
        return (resident, other, configuration)
    }

    /// Appends "!" to user u1's name in a write of `store`, calling `meanwhile(run)` in each
    /// run (the first one on the graph in memory); returns how many runs there were.
    static func exclaimU1(in store: Store, _ meanwhile: (Int) throws -> Void = { _ in }) throws -> Int {
        var runs = 0
        try store.write { context in
            guard var user = User.query("u1", in: context).resolve() else { throw Missing() }
            runs += 1
            try meanwhile(runs)
            user.name += "!"
            try user.save(to: &context)
        }
        return runs
    }

    /// What `changes` reports until one satisfies `last`, or for `seconds` at most.
    static func changes(_ changes: StoreObservation<StoreChanges>, within seconds: Double,
                        until last: @escaping @Sendable (StoreChanges) -> Bool) async -> [StoreChanges] {
        let collecting = Task {
            var heard: [StoreChanges] = []
            for await change in changes {
                heard.append(change)
                if last(change) { break }
            }
            return heard
        }
        let deadline = Task {
            try await Task.sleep(for: .seconds(seconds))
            collecting.cancel()
        }
        let heard = await collecting.value
        deadline.cancel()
        return heard
    }

    /// The second run reads u1 as the other store left it (no lost update) while that store
    /// commits elsewhere, without waiting for the lock; the graph then holds both commits,
    /// and the store's observers heard of both.
    @Test func aStaleWriteReadsTheDatabaseAndItsGraphFollowsToItsCommit() async throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, other, configuration) = try Self.stores(cluster, "stalefollows")
        let changes = store.changes()
        try await other.write { try User(id: "u1", name: "Ann B.").save(to: &$0) }
        let retries = store.staleWriteRetries
        let runs = try Self.exclaimU1(in: store) { run in
            if run == 2 { try other.write { try Attachment(id: "x1", kind: .video).save(to: &$0) } }
        }
        #expect(runs == 2)
        #expect(store.staleWriteRetries - retries == 1)
        #expect(store.staleWritesReadUnlocked == (runs: 1, changed: 0))
        #expect(User.query("u1", in: store.context).resolve()?.name == "Ann B.!")
        #expect(Attachment.query("x1", in: store.context).resolve()?.kind == .video)
        #expect(try await other.read { User.query("u1", in: $0).resolve()?.name } == "Ann B.!")
        // Observers learn of the three commits (together: the graph followed them at once).
        let heard = await Self.changes(changes, within: 10) { User.query("u1", in: $0.context).resolve()?.name == "Ann B.!" }
        #expect(heard.count == 1)
        #expect(heard.last?.changes(Attachment.self)?.inserted == ["x1"])
        // The graph equals one loaded anew.
        let reopened = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .resident))
        #expect(try ChatGraphText.of(reopened.context) == ChatGraphText.of(store.context))
    }

    /// A stale write that only creates entities takes them for new (``WriteAttemptPolicy``): it
    /// reads nothing, its commit checks they were, and the graph follows to it.
    @Test func aStaleWriteOfNewEntitiesTakesThemForNew() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, other, _) = try Self.stores(cluster, "stalenew")
        try other.write { try Message(id: "m2", text: "second", author: .id("u1"), chat: .id("c1")).save(to: &$0) }
        var runs = 0
        try store.write { context in
            runs += 1
            try Message(id: "m3", text: "third", author: .id("u1"), chat: .id("c1")).save(to: &context)
        }
        #expect(runs == 2)
        let statistics = store.staleWriteStatistics
        #expect(statistics.writesAssumingNew == 1 && statistics.writesAssumingNewRetried == 0, "\(statistics)")
        #expect(statistics.writesReadingUnlocked == 0)
        #expect(Chat.query("c1", in: store.context).with(\.$messages).resolve()?.messages?.map(\.id) == ["m1", "m2", "m3"])
        #expect(try other.read { Chat.query("c1", in: $0).with(\.$messages).resolve()?.messages?.map(\.id) } == ["m1", "m2", "m3"])
    }

    /// A commit changing what the second run read makes it run again; the third run reads
    /// that commit's name.
    @Test func aStaleWriteWhoseReadChangesMeanwhileRunsAgain() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, other, _) = try Self.stores(cluster, "stalechanged")
        try other.write { try User(id: "u1", name: "Ann B.").save(to: &$0) }
        let runs = try Self.exclaimU1(in: store) { run in
            if run == 2 { try other.write { try User(id: "u1", name: "Ann C.").save(to: &$0) } }
        }
        #expect(runs == 3)
        #expect(store.staleWritesReadUnlocked == (runs: 2, changed: 1))
        #expect(User.query("u1", in: store.context).resolve()?.name == "Ann C.!")
        #expect(try other.read { User.query("u1", in: $0).resolve()?.name } == "Ann C.!")
    }

    /// Reads that change in every run without the lock: after ``Store/unlockedAttempts``
    /// such runs, the write runs on its graph, caught up under the lock, and commits.
    @Test func aStaleWriteThatKeepsLosingRunsOnItsGraphUnderTheLock() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, other, _) = try Self.stores(cluster, "stalelosing")
        try other.write { try User(id: "u1", name: "Ann 0").save(to: &$0) }
        let runs = try Self.exclaimU1(in: store) { run in
            if run >= 2, run <= Store.unlockedAttempts + 1 { try other.write { try User(id: "u1", name: "Ann \(run)").save(to: &$0) } }
        }
        #expect(runs == Store.unlockedAttempts + 2)
        #expect(store.staleWritesReadUnlocked == (runs: Store.unlockedAttempts, changed: Store.unlockedAttempts))
        let expected = "Ann \(Store.unlockedAttempts + 1)!"
        #expect(User.query("u1", in: store.context).resolve()?.name == expected)
        #expect(try other.read { User.query("u1", in: $0).resolve()?.name } == expected)

        // A hot row: the next stale writes take the lock first (WriteAttemptPolicy), then
        // one reads before it again. They still run on the graph first: on the database
        // they take the lock first, and their run on the graph may commit in one round trip.
        for _ in 0..<WriteAttemptPolicy.shortestBackoff {
            try other.write { try Attachment(id: "x\(UUID())").save(to: &$0) }
            #expect(try Self.exclaimU1(in: store) == 2)
        }
        #expect(store.staleWritesReadUnlocked.runs == Store.unlockedAttempts)
        #expect(store.graphRunsSkipped == 0)
        // The write that reads before the lock again skips the graph: its last run there
        // that the policy chose (the first write's) was stale.
        try other.write { try Attachment(id: "x\(UUID())").save(to: &$0) }
        #expect(try Self.exclaimU1(in: store) == 1)
        #expect(store.graphRunsSkipped == 1)
        #expect(store.staleWritesReadUnlocked.runs == Store.unlockedAttempts + 1)
    }

    /// A closure that threw on its stale graph (an email taken there, freed since) commits
    /// when it runs reading the database; one that throws there too throws that error.
    @Test func aClosureThatThrewOnItsStaleGraphCommitsWhereTheDatabaseAllows() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, other, _) = try Self.stores(cluster, "stalethrew")
        try store.write { try User(id: "u2", name: "Bob", email: "bob@x").save(to: &$0) }
        try other.write { try User(id: "u2", name: "Bob", email: "robert@x").save(to: &$0) }
        var runs = 0
        try store.write { context in
            runs += 1
            try User(id: "u3", name: "Another Bob", email: "bob@x").save(to: &context)
        }
        #expect(runs == 2)
        #expect(User.query("u3", in: store.context).resolve()?.email == "bob@x")
        #expect(User.query("u2", in: store.context).resolve()?.email == "robert@x")

        try other.write { try Chat(id: "c9").save(to: &$0) }
        runs = 0
        #expect(throws: UniqueConstraintViolation.self) {
            try store.write { context in
                runs += 1
                try User(id: "u4", name: "Yet Another Bob", email: "bob@x").save(to: &context)
            }
        }
        // Not on its graph (its last run there was stale: ``StaleWriteReading``), but taking
        // u4 for new (the database's unique index refuses it), then reading what it touches.
        #expect(store.graphRunsSkipped == 1)
        #expect(runs == 2)
        #expect(User.query("u4", in: store.context).resolve() == nil)
        #expect(try other.read { User.query("u4", in: $0).resolve() } == nil)
        // The graph follows the other store's commit at the next write.
        try store.write { try Chat(id: "c10").save(to: &$0) }
        #expect(Set(Chat.query(in: store.context).resolve().map(\.id)) == ["c1", "c9", "c10"])
    }

    /// While other stores commit before most of its writes, a resident store's writes start
    /// on the database, skipping their run on the graph (stale, so wasted); they try the
    /// graph again after a while, backing off twice as long each time it was stale; once
    /// it holds, they run on the graph first again.
    @Test func writesWhoseRunsOnTheGraphKeepBeingStaleStartOnTheDatabase() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, other, _) = try Self.stores(cluster, "stalestart")
        var written = 0
        /// Saves a new attachment in a write of `store`, after another store's commit when
        /// `behind`; returns the runs of the closure.
        func write(behind: Bool) throws -> Int {
            if behind { try other.write { try Chat(id: "c\(UUID())").save(to: &$0) } }
            written += 1
            var runs = 0
            try store.write { context in
                runs += 1
                try Attachment(id: "a\(written)").save(to: &context)
            }
            return runs
        }
        let backoff = WriteAttemptPolicy.shortestBackoff
        // Stale on the graph, then committed on the database (taken for new).
        #expect(try write(behind: true) == 2)
        #expect(store.staleWriteRetries == 1)
        for _ in 0..<backoff { #expect(try write(behind: true) == 1) }
        #expect(store.graphRunsSkipped == backoff)
        // The graph tried again: stale again, so twice as many start on the database.
        #expect(try write(behind: true) == 2)
        for _ in 0..<2 * backoff { #expect(try write(behind: true) == 1) }
        #expect(store.graphRunsSkipped == 3 * backoff)
        #expect(store.staleWriteRetries == 2)
        // The others stop: the next try on the graph holds, and so do the writes after it.
        for _ in 0..<3 { #expect(try write(behind: false) == 1) }
        #expect(store.graphRunsSkipped == 3 * backoff)
        #expect(store.staleWriteRetries == 2)
        // Every write's commit, in the graph and in the database.
        let ids = Set((1...written).map { "a\($0)" })
        #expect(Set(Attachment.query(in: store.context).resolve().map(\.id)) == ids)
        #expect(try other.read { Set(Attachment.query(in: $0).resolve().map(\.id)) } == ids)
    }
}
