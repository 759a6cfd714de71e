import ChatModels
import ChatWorkloads
import DeterministicRandom
import Foundation
import SchemaRuntime
@_spi(SchemaStoreTesting) @testable import SchemaStore
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// `Store(.postgres(...))` against a real server (a throwaway cluster): the same graph as a
/// SQLite store fed the same writes, several stores sharing one database, typed errors.
@Suite(.serialized) struct PostgresStoreTests {
    /// A fresh database on `cluster`, and where it is.
    static func database(_ cluster: TemporaryPostgresCluster, _ name: String) throws -> PostgresConnection.Configuration {
        try cluster.createDatabase(name)
    }

    /// Stops the server (it stays stopped) and expects a write of user "u2" to `store` to
    /// throw within 10 s: a typed failure, never a hang.
    static func stopServerAndWriteInVain(_ store: Store, _ cluster: TemporaryPostgresCluster,
                                         sourceLocation: SourceLocation = #_sourceLocation) throws {
        try cluster.stopServer()
        let start = Date()
        #expect(throws: (any Error).self, sourceLocation: sourceLocation) {
            try store.write { try User(id: "u2", name: "while down").save(to: &$0) }
        }
        #expect(Date().timeIntervalSince(start) < 10, "a write to a stopped server hung", sourceLocation: sourceLocation)
    }

    /// An entity deleted and saved again in one write moves to the end of storage order on
    /// PostgreSQL too, resident and on demand (`OnDemandDifferentialTests`), also once reopened.
    @Test func anEntityDeletedAndSavedAgainMovesLast() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        for residency in [Store.Residency.resident, .onDemand] {
            let configuration = try Self.database(cluster, "savedagain\(residency)")
            let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: residency))
            let (messages, chat) = try DeletedAndSavedAgain.write(to: store)
            #expect(messages == DeletedAndSavedAgain.expected && chat == DeletedAndSavedAgain.expected, "\(residency)")
            store.close()
            let reopened = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: residency))
            #expect(try reopened.read(DeletedAndSavedAgain.messages) == DeletedAndSavedAgain.expected, "\(residency), reopened")
        }
    }

    /// The differential test: each random write goes to a SQLite file store and to a
    /// PostgreSQL store; both must succeed or fail alike and hold the same graph, also
    /// after the PostgreSQL store is opened again.
    @Test(arguments: SoakSeeds.cases([(1, .onDemand), (2, .onDemand), (3, .resident)], variants: [Store.Residency.onDemand, .resident]))
    func aPostgreSQLStoreHoldsWhatASQLiteStoreHoldsAfterEveryWrite(seed: UInt64, residency: Store.Residency) throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "differential\(seed)")
        // Both stores read alike: on demand, every context lists entities in storage order;
        // resident, in the order their ids first appeared (equal again once reopened).
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-differential-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("chat.store")
        let options = Store.Options(residency: residency)
        var sqlite = try Store(.file(file), schema: ChatModelsSchema.self, options: options)
        var postgres: Store? = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: options)
        #expect(postgres!.readsOnDemand == (residency == .onDemand))
        var random = SplitMix64(seed: seed)
        // Queries drawn apart, so that they do not change the writes a seed makes.
        var queryRandom = SplitMix64(seed: seed &* 31 &+ 7)
        var failures = 0, mostMessages = 0, queries = 0
        // Writes on demand that assumed what they loaded was new, and those that found otherwise.
        var assumed = 0, retried = 0
        for step in 0..<120 {
            let write = RandomChatWrite.next(&random), name = write.description
            let expected = Result { try sqlite.write(write.apply) }
            let actual = Result { try postgres!.write(write.apply) }
            switch (expected, actual) {
            case (.success, .success): break
            case (.failure(let left), .failure(let right)):
                #expect("\(left)" == "\(right)", "step \(step) \(name)")
                failures += 1
            default:
                Issue.record("step \(step) \(name): SQLite \(expected), PostgreSQL \(actual)")
            }
            #expect(try ChatGraphText.of(postgres!.context) == ChatGraphText.of(sqlite.context), "step \(step) \(name)")
            if residency == .onDemand {
                // The postings' statistics (ranked matches score with them), kept by each
                // database's own statements.
                #expect(try postgres!.fullTextStatistics(of: Message.self, matching: "hello bye reply 1")
                        == sqlite.fullTextStatistics(of: Message.self, matching: "hello bye reply 1"), "step \(step) \(name)")
                #expect(try postgres!.fullTextStatistics(of: User.self, matching: "name mail n1")
                        == sqlite.fullTextStatistics(of: User.self, matching: "name mail n1"), "step \(step) \(name)")
            }
            // Random queries answer alike, order included (save times differ between the two).
            for _ in 0..<6 {
                let (query, answer) = RandomChatQuery.next(&queryRandom)
                guard !query.hasPrefix("save times"), !query.hasPrefix("updated since") else { continue }
                let expected = answer(sqlite.context)
                let actual = residency == .onDemand ? try postgres!.read { answer($0) } : answer(postgres!.context)
                if actual != expected {
                    Issue.record("step \(step) \(query)\n  PostgreSQL: \(actual.prefix(400))\n  SQLite:     \(expected.prefix(400))")
                }
                queries += 1
            }
            mostMessages = max(mostMessages, Message.query(in: postgres!.context).count())
            if step % 30 == 29 {
                // Both opened again: a loaded graph lists entities in storage order, which
                // the graph they were written from need not (ids linked before stored).
                assumed += postgres!.onDemandStatistics.writesAssumingNew
                retried += postgres!.onDemandStatistics.writesAssumingNewRetried
                postgres = nil
                postgres = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: options)
                sqlite.close()
                sqlite = try Store(.file(file), schema: ChatModelsSchema.self, options: options)
                #expect(try ChatGraphText.of(postgres!.context) == ChatGraphText.of(sqlite.context), "reopened after step \(step)")
            }
        }
        #expect(failures > 0, "no write collided on a unique email")
        #expect(queries > 500)
        #expect(mostMessages > 3, "the writes never stored several messages")
        if residency == .onDemand {
            // Both ways were taken: assumptions that held, and some that did not.
            #expect(assumed > retried && retried > 0, "assumed \(assumed), retried \(retried)")
        }
    }

    /// Two stores on one database (two processes' worth: separate connections): each sees
    /// the other's commits, its observers are told, and writes that read-modify-write one
    /// value from both never lose an update.
    @Test func storesSharingADatabaseSeeEachOthersCommitsAndNeverLoseOne() async throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "shared")
        let first = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        let second = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        let changes = second.changes()
        _ = try await first.write { try User(id: "u1", name: "Ada", age: 0).save(to: &$0) }
        // The second store's observers hear of it from the commit log, within the polling interval.
        var iterator = changes.makeAsyncIterator()
        let heard = await iterator.next()
        #expect(heard?.changes(User.self)?.inserted == ["u1"])
        #expect(User.query("u1", in: second.context).resolve()?.name == "Ada")

        // Increments from both stores, on threads: each write first loads the other's commits.
        let rounds = 25
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let store = index == 0 ? first : second
            for _ in 0..<rounds {
                try? store.write { context in
                    guard var user = context.find(User.self, id: "u1") else { return }
                    user.age += 1
                    try user.save(to: &context)
                }
            }
        }
        try first.refresh()
        try second.refresh()
        #expect(User.query("u1", in: first.context).resolve()?.age == 2 * rounds)
        #expect(User.query("u1", in: second.context).resolve()?.age == 2 * rounds)
        // The observing store heard of the other's commits from the server (NOTIFY), not only
        // by polling.
        #expect(second.commitNotificationsReceived > 0)
        // A third store opened now loads the same graph.
        let third = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        #expect(try ChatGraphText.of(third.context) == ChatGraphText.of(first.context))
    }

    /// Every writer notifies each commit, so a store hears of its own too: they cost it no
    /// read of the database (a check per commit would take the write lock and a round trip
    /// between its writes), while another store's commits are read as soon as they are heard.
    @Test func aStoresOwnCommitNotificationsAreNotReadBack() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "ownnotifications")
        let writer = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        let follower = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        // Both listen before the writes that count: a listener connects on its own thread,
        // and one that connected after them would hear none (its first check reads them
        // all). Commits until both heard one.
        var warmUps = 0
        let listening = Date().addingTimeInterval(10)
        while Date() < listening, writer.commitNotificationsReceived < 1 || follower.commitNotificationsReceived < 1 {
            try writer.write { try User(id: "w\(warmUps)", name: "warm-up").save(to: &$0) }
            warmUps += 1
            Thread.sleep(forTimeInterval: 0.02)
        }
        // Heard by both: the last warm-up and these.
        let writes = 60, heard = writes + 1
        for round in 0..<writes {
            try writer.write { try User(id: "u\(round)", name: "user \(round)").save(to: &$0) }
        }
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, writer.commitNotificationsReceived < heard || follower.context.count(of: User.self) < writes + warmUps {
            Thread.sleep(forTimeInterval: 0.02)
        }
        Thread.sleep(forTimeInterval: 0.2)
        #expect(writer.commitNotificationsReceived >= heard && follower.context.count(of: User.self) == writes + warmUps)
        // One check when the listener first connected (commits before it may be missed),
        // none for the writer's own commits.
        let own = writer.notifiedCommitChecks, other = follower.notifiedCommitChecks
        #expect(own.ran <= 1 && own.skipped >= 1, "\(own)")
        #expect(other.ran >= 2, "\(other)")
    }

    /// The server restarts under two stores: a write while it is down throws a typed error
    /// and changes nothing; once it is back, both stores reconnect on their own, write, and
    /// see each other's commits; nothing committed before is lost.
    @Test func storesRecoverWhenTheServerRestarts() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "restart")
        var timeout = configuration
        timeout.connectTimeout = 2
        let first = try Store(.postgres(timeout), schema: ChatModelsSchema.self)
        let second = try Store(.postgres(timeout), schema: ChatModelsSchema.self)
        try first.write { try User(id: "u1", name: "before").save(to: &$0) }

        try Self.stopServerAndWriteInVain(first, cluster)
        #expect(User.query("u2", in: first.context).resolve() == nil)
        try cluster.startServer()

        try first.write { try User(id: "u3", name: "after").save(to: &$0) }
        try second.write { try User(id: "u4", name: "second after").save(to: &$0) }
        try first.refresh()
        for store in [first, second] {
            #expect(Set(store.context.ids(of: User.self)) == ["u1", "u3", "u4"])
        }
        let reopened = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        #expect(try ChatGraphText.of(reopened.context) == ChatGraphText.of(first.context))
    }

    /// The same for a store writing on demand, whose write checks the schema with its first
    /// reads and inserts the rows it found missing without a conflict clause: a write while
    /// the server is down throws within seconds and changes nothing; once it is back the
    /// store reconnects on its own, a new row and a changed one are written right, and a
    /// second store sees them.
    @Test func aStoreWritingOnDemandRecoversWhenTheServerRestarts() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "restartondemand")
        var timeout = configuration
        timeout.connectTimeout = 2
        let store = try Store(.postgres(timeout), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        try store.write { try User(id: "u1", name: "before").save(to: &$0) }
        #expect(try store.read { User.query(in: $0).resolve().map(\.id) } == ["u1"])

        try Self.stopServerAndWriteInVain(store, cluster)
        try cluster.startServer()

        try store.write { context in
            try User(id: "u3", name: "new").save(to: &context)
            try User(id: "u1", name: "changed").save(to: &context)
        }
        #expect(try store.read { User.query(in: $0).sorted(by: \.id).resolve().map { "\($0.id) \($0.name)" } } == ["u1 changed", "u3 new"])
        let other = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        #expect(User.query(in: other.context).sorted(by: \.id).resolve().map { "\($0.id) \($0.name)" } == ["u1 changed", "u3 new"])
    }

    /// The server drops a store's connection in the middle of a write (as a network failure
    /// or an administrator would): the write throws and none of it is kept, never the part
    /// after the drop run on a new connection outside the transaction; the next write works.
    @Test func aConnectionDroppedDuringAWriteCommitsNothingOfIt() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "dropped")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        try store.write { try User(id: "u1", name: "kept").save(to: &$0) }
        let admin = try PostgresConnection(cluster.configuration())
        defer { admin.close() }
        #expect(throws: (any Error).self) {
            try store.write { context in
                try User(id: "u2", name: "lost").save(to: &context)
                try Chat(id: "c1", users: .ids(["u1", "u2"])).save(to: &context)
                // Every connection to the store's database but the admin's: the store's.
                try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1", [.text("dropped")])
            }
        }
        #expect(Set(store.context.ids(of: User.self)) == ["u1"])
        let reopened = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        #expect(Set(reopened.context.ids(of: User.self)) == ["u1"] && reopened.context.ids(of: Chat.self).isEmpty)
        try store.write { try User(id: "u3", name: "next").save(to: &$0) }
        #expect(Set(store.context.ids(of: User.self)) == ["u1", "u3"])
    }

    /// A store reading on demand whose server is down: `read` throws, the process goes on,
    /// and reads work again once the server is back.
    @Test func onDemandReadsOfAServerThatIsDownThrowInsideARead() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        var configuration = try Self.database(cluster, "down")
        configuration.connectTimeout = 2
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        #expect(store.readsOnDemand)
        try store.write { try User(id: "u1", name: "Ada").save(to: &$0) }
        #expect(try store.read { User.query(in: $0).count() } == 1)
        try cluster.stopServer()
        #expect(throws: (any Error).self) { try store.read { User.query(in: $0).resolve().map(\.id) } }
        try cluster.startServer()
        #expect(try store.read { User.query(in: $0).resolve().map(\.id) } == ["u1"])
    }

    /// A store reading on demand observes another store's commits without a graph: its
    /// change stream reports them (read from the commit log once notified) and a live query
    /// runs again, on the server, for each one that changes its result.
    @Test func aStoreReadingOnDemandObservesAnotherStoresCommits() async throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "observeondemand")
        let writer = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        let observer = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        #expect(observer.readsOnDemand)
        var changes = observer.changes().makeAsyncIterator()
        var live = observer.observe(User.query().filter(\.age >= 18).sorted(by: \.name)).makeAsyncIterator()
        #expect(await live.next()?.map(\.id) == [])
        _ = try await writer.write { context in
            try User(id: "u1", name: "Zoe", age: 30).save(to: &context)
            try User(id: "u2", name: "Ada", age: 12).save(to: &context)
        }
        #expect(await changes.next()?.changes(User.self)?.inserted.sorted() == ["u1", "u2"])
        #expect(await live.next()?.map(\.id) == ["u1"])
        _ = try await writer.write { try User(id: "u2", name: "Ada", age: 40).save(to: &$0) }
        #expect(await changes.next()?.changes(User.self)?.updated == ["u2"])
        #expect(await live.next()?.map(\.id) == ["u2", "u1"])
    }

    /// A snapshot whose connection the server dropped while nothing was committed goes on
    /// on a new connection, which holds the same state: a context from `store.context` keeps
    /// answering (it cannot throw), and so does a `read`.
    @Test func aSnapshotLostWhileNothingWasCommittedGoesOnOnANewConnection() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "resumed")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        try store.write { context in
            try User(id: "u1", name: "Ada").save(to: &context)
            try User(id: "u2", name: "Grace").save(to: &context)
        }
        let admin = try PostgresConnection(cluster.configuration())
        defer { admin.close() }
        func dropConnections() throws {
            try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [.text("resumed")])
        }
        let context = store.context
        #expect(User.query(in: context).count() == 2)
        try dropConnections()
        #expect(User.query(in: context).sorted(by: \.name).resolve().map(\.id) == ["u1", "u2"])
        let names = try store.read { context in
            let first = User.query(in: context).count()
            try dropConnections()
            return (first, User.query(in: context).resolve().map(\.name))
        }
        #expect(names.0 == 2 && names.1 == ["Ada", "Grace"])
    }

    /// A writer waits for the write lock at most its lock timeout, then fails with
    /// `StoreError.locked` naming the database, having written nothing; it writes once the
    /// lock is free. (The lock is held here as any writer holds it while its commit runs.)
    @Test func aWriterWaitingLongerThanItsLockTimeoutFailsWithLocked() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "locked")
        let waiter = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(lockTimeout: 0.3))
        try waiter.write { try User(id: "before", name: "b").save(to: &$0) }
        let holder = try PostgresConnection(configuration)
        defer { holder.close() }
        try holder.execute("BEGIN")
        try holder.execute("SELECT pg_advisory_xact_lock($1)", [.integer(PostgreSQLBackend.writeLock)])
        let start = Date()
        do {
            try waiter.write { try User(id: "waiting", name: "w").save(to: &$0) }
            Issue.record("wrote while another connection held the write lock")
        } catch StoreError.locked(let path) {
            #expect(path == configuration.description)
        }
        #expect(Date().timeIntervalSince(start) < 3)
        try holder.execute("COMMIT")
        try waiter.write { try User(id: "after", name: "a").save(to: &$0) }
        #expect(Set(waiter.context.ids(of: User.self)) == ["before", "after"])
    }

    /// A write on a server runs its closure on the graph as of the last commit its store heard
    /// of, and commits in one round trip only if no other commit came first. Here another
    /// commit comes first unheard (made behind the stores' backs, so no notification): the
    /// write is refused, the closure runs again on the latest state (read from the database,
    /// `StaleResidentWriteTests`), the store's graph then holds that commit and its own, and
    /// a closure that threw on the old graph (a unique email that commit freed) runs again too.
    @Test func aWriteThatAnotherCommitPrecededRunsAgainOnTheLatestGraph() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "stale")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        try store.write { try User(id: "u1", name: "Ada", email: "ada@x", age: 1).save(to: &$0) }
        let admin = try PostgresConnection(configuration)
        defer { admin.close() }
        /// Changes u1 as a commit the store's log lists, without telling anyone.
        func commitBehindTheStoresBack(_ assignment: String) throws {
            try admin.execute("BEGIN")
            try admin.execute("UPDATE \"User\" SET \(assignment) WHERE id = 'u1'")
            try admin.execute("""
                INSERT INTO "\(CommitLog.table)" ("commit", kind, name, id) \
                SELECT coalesce(max("commit"), 0) + 1, 'row', 'User', 't:u1' FROM "\(CommitLog.table)"
                """)
            try admin.execute("COMMIT")
        }
        // (The store also checks the log once a second: if that check comes between, the
        // closure runs once, on the latest graph. Three rounds, so the refusal is seen.)
        var runs = 0
        for round in 0..<3 {
            try commitBehindTheStoresBack("age = \(10 * (round + 1))")
            let retries = store.staleWriteRetries
            runs = 0
            try store.write { context in
                // (Run again reading the database, it may first take u1 for new: not counted.)
                guard var user = context.find(User.self, id: "u1") else { throw CancellationError() }
                runs += 1
                user.age += 1
                try user.save(to: &context)
            }
            #expect(runs == 1 + store.staleWriteRetries - retries)
            #expect(User.query("u1", in: store.context).resolve()?.age == 10 * (round + 1) + 1)
        }
        // After a stale run on the graph, the next writes start on the database (StaleWriteReading).
        #expect(store.staleWriteRetries >= 1 && store.staleWriteRetries + store.graphRunsSkipped >= 2)

        try commitBehindTheStoresBack("email = 'ada@y'")
        try store.write { try User(id: "u2", name: "Grace", email: "ada@x").save(to: &$0) }
        #expect(User.query(in: store.context).sorted(by: \.name).resolve().map { $0.email ?? "" } == ["ada@y", "ada@x"])
        // A closure that throws on the latest graph throws, once.
        runs = 0
        #expect(throws: (any Error).self) {
            try store.write { context in
                runs += 1
                try User(id: "u3", name: "Alan", email: "ada@x").save(to: &context)
            }
        }
        #expect(runs == 1)
    }

    /// Reads on demand share a bounded pool of connections: with all of them held by reads
    /// in progress, another read waits up to the lock timeout and then throws (a typed
    /// error, no connection opened past the bound); once one is given back, reads go on.
    @Test func readsShareABoundedPoolOfConnections() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "pool")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self,
                              options: Store.Options(lockTimeout: 0.3, residency: .onDemand, maximumReadConnections: 2))
        try store.write { try User(id: "u1", name: "Ada").save(to: &$0) }
        let inside = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0), done = DispatchGroup()
        for _ in 0..<2 {
            DispatchQueue.global().async(group: done) {
                _ = try? store.read { context in
                    let count = User.query(in: context).count()
                    inside.signal()
                    release.wait()
                    return count
                }
            }
        }
        inside.wait()
        inside.wait()
        #expect(store.readConnectionCount == 2)
        do {
            _ = try store.read { User.query(in: $0).count() }
            Issue.record("a third read ran while both connections were held")
        } catch StoreError.database(let path, let reason) {
            #expect(path == configuration.description && reason.contains("2 connections"), "\(reason)")
        }
        #expect(store.readConnectionCount == 2)
        release.signal()
        release.signal()
        done.wait()
        #expect(try store.read { User.query(in: $0).count() } == 1)
        #expect(store.readConnectionCount <= 2)
    }

    /// A snapshot whose connection the server dropped in the middle of a `read` never goes
    /// on reading on a new connection (which would see later commits): the read throws, and
    /// the next one reads the database as it is.
    @Test func aReadWhoseConnectionWasLostThrowsRatherThanReadAnotherState() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "lostsnapshot")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        let other = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        try store.write { try User(id: "u1", name: "Ada").save(to: &$0) }
        let admin = try PostgresConnection(cluster.configuration())
        defer { admin.close() }
        var counts: [Int] = []
        #expect(throws: (any Error).self) {
            try store.read { context in
                counts.append(User.query(in: context).count())
                try other.write { try User(id: "u2", name: "Grace").save(to: &$0) }
                try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
                                  [.text("lostsnapshot")])
                // Another count than the first (whose answer the snapshot keeps): it needs the server.
                counts.append(User.query(in: context).filter(\.name != "").count())
            }
        }
        #expect(counts.first == 1 && counts.dropFirst().allSatisfy { $0 != 2 }, "\(counts)")
        #expect(try store.read { User.query(in: $0).count() } == 2)
    }

    /// A store whose contexts answer empty on a failed read (`contextReadFailure`) does not
    /// stop when a context's snapshot is lost after other commits (it cannot go on reading
    /// the state it showed): the query answers empty and the error is reported, once per
    /// failed read; taking a context while the server is down answers an empty graph,
    /// reported too; and once the server is back, a new context reads it as it is.
    @Test func contextsThatAnswerEmptyReportLostReadsInsteadOfStopping() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "answerempty")
        let reported = Reported()
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self,
                              options: Store.Options(residency: .onDemand, contextReadFailure: .answerEmpty { reported.add($0) }))
        let other = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        try store.write { try User(id: "u1", name: "Ada").save(to: &$0) }
        let admin = try PostgresConnection(cluster.configuration())
        defer { admin.close() }

        let context = store.context
        #expect(User.query(in: context).count() == 1)
        try other.write { try User(id: "u2", name: "Grace").save(to: &$0) }
        try admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
                          [.text("answerempty")])
        // Another query than the first (whose answer the snapshot keeps): it needs the server.
        #expect(User.query(in: context).filter(\.name != "").count() == 0)
        #expect(context.find(User.self, id: "u2") == nil && context.find(User.self, id: "u1") == nil)
        #expect(reported.count >= 1, "the failed reads were reported")
        let afterLostSnapshot = reported.count

        // The server down: taking a context answers an empty graph, and says so.
        try cluster.stopServer()
        let down = store.context
        #expect(User.query(in: down).count() == 0)
        #expect(reported.count > afterLostSnapshot, "the failed snapshot was reported")
        #expect(throws: (any Error).self) { try store.read { User.query(in: $0).count() } }

        try cluster.startServer()
        let deadline = Date().addingTimeInterval(10)
        var count = 0
        while count != 2, Date() < deadline {
            count = User.query(in: store.context).count()
            if count != 2 { Thread.sleep(forTimeInterval: 0.05) }
        }
        #expect(count == 2, "a new context reads the server again")
    }

    /// The errors a test's reporter was given.
    final class Reported: @unchecked Sendable {
        private let lock = NSLock()
        private var errors: [any Error] = []
        var count: Int { lock.withLock { errors.count } }
        func add(_ error: any Error) { lock.withLock { errors.append(error) } }
    }

    /// Ranked full-text `matches` on a server read on demand: candidates and BM25 statistics
    /// come from postings every writer keeps (filled from the rows when the tables are made),
    /// and the ranking equals a resident store's, ties included, through inserts, updates and
    /// deletes. Nothing reads the whole graph.
    @Test(arguments: SoakSeeds.seeds([1, 2, 1_000]))
    func rankedMatchesOnDemandEqualAResidentStores(seed: UInt64) throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "fulltext\(seed)")
        var random = SplitMix64(seed: seed)
        let early = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        try early.write(RankedMatchWorkload.start(&random))
        early.close()
        // Postings gone (a database from before them): the next writer's open fills them from the rows.
        let admin = try PostgresConnection(configuration)
        defer { admin.close() }
        for row in try admin.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE '%:fts:%'") {
            if case .text(let name) = row[0] { try admin.execute("DROP TABLE \"\(name)\"") }
        }
        let writer = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        let reader = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(readOnly: true, residency: .onDemand))
        for round in 0..<5 {
            if round > 0 { try writer.write(RankedMatchWorkload.round(&random)) }
            let resident = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(readOnly: true, residency: .resident))
            for _ in 0..<8 {
                let (query, lists) = RankedMatchWorkload.queries(&random)
                for list in lists {
                    let expected = list.resolve(in: resident.context).map(\.id)
                    #expect(try reader.read { list.resolve(in: $0).map(\.id) } == expected, "round \(round): \(query)")
                }
            }
            resident.close()
        }
        let statistics = reader.onDemandStatistics
        #expect(statistics.fullTextReads > 0, "\(statistics)")
        #expect(statistics.wholeGraphReads == 0, "\(statistics)")
    }

    /// The schema's ordered, hash and unique indexes, and each link table's index by target,
    /// are PostgreSQL indexes: created at open, made again when their definition changed,
    /// dropped once the schema no longer declares them; queries on demand use them.
    @Test func theSchemasIndexesAreServerIndexesThatQueriesUse() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "indexes")
        let connection = try PostgresConnection(configuration)
        defer { connection.close() }
        func managed() throws -> [String: String] {
            var indexes: [String: String] = [:]
            for row in try connection.execute("SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema()") {
                if case .text(let name) = row[0], case .text(let definition) = row[1], name.contains(":index:") || name.hasSuffix(":target") {
                    indexes[name] = definition
                }
            }
            return indexes
        }
        var store: Store? = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        let created = try managed()
        #expect(created["Message:index:timestampOrdered"]?.contains("\"timestamp\" DESC NULLS LAST") == true, "\(created)")
        #expect(created["User:index:nameAgeOrdered"]?.contains("NORMALIZE(name, NFC)") == true, "\(created.keys.sorted())")
        #expect(created.keys.contains("Message.author:target") && created.keys.contains("Chat.users:target"))

        try store!.write { context in
            try User(id: "u1", name: "Ada").save(to: &context)
            for chat in 0..<20 {
                try Chat(id: "c\(chat)", messages: .relation((0..<200).map { index in
                    Message(id: "m\(chat)-\(index)", text: "hello", timestamp: chat * 1_000 + index, author: .id("u1"))
                })).save(to: &context)
            }
        }
        try connection.execute("ANALYZE")
        let newest = store!.explainSQL(Message.query(in: store!.context).sorted(by: \.timestamp.desc).limit(20))
        #expect(newest?.plan.contains { $0.contains("Message:index:timestampOrdered") } == true, "\(newest?.plan ?? [])")
        #expect(Message.query(in: store!.context).sorted(by: \.timestamp.desc).limit(2).resolve().map(\.id) == ["m19-199", "m19-198"])

        // An index the schema no longer declares goes; one defined otherwise is made again.
        store = nil
        try connection.execute("CREATE INDEX \"User:index:gone\" ON \"User\" (age)")
        try connection.execute("DROP INDEX \"Message:index:timestampOrdered\"")
        try connection.execute("CREATE INDEX \"Message:index:timestampOrdered\" ON \"Message\" (\"timestamp\")")
        store = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        #expect(try managed() == created)
    }

    /// The schema's unique indexes on integer, text and byte fields are also the database's
    /// unique constraints, checked at commit: a write may pass through duplicates (two users
    /// swapping emails), a statement written by hand may not leave one.
    @Test func uniqueIndexesAreDeferredConstraintsOfTheDatabase() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "unique")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        let admin = try PostgresConnection(configuration)
        defer { admin.close() }
        let constraints = try admin.execute("SELECT conname FROM pg_constraint WHERE contype = 'u' ORDER BY conname").map { $0[0] }
        #expect(constraints.contains(.text("User:unique:emailUnique")) && constraints.contains(.text("User:unique:usernameUnique"))
                && constraints.contains(.text("User:unique:isCurrentUnique")), "\(constraints)")
        // u2 stored first, so written first: its new email is u1's until u1's row follows.
        try store.write { context in
            try User(id: "u2", name: "Grace", username: "grace", email: "g@x").save(to: &context)
            try User(id: "u1", name: "Ada", username: "ada", email: "a@x").save(to: &context)
        }
        try store.write { context in
            try User(id: "u1", name: "Ada", email: "b@x").save(to: &context)
            try User(id: "u2", name: "Grace", email: "a@x").save(to: &context)
        }
        #expect(User.query(in: store.context).sorted(by: \.name).resolve().map(\.email) == ["b@x", "a@x"])
        // By hand too: a swap inside a transaction commits; a duplicate left at commit does not.
        try admin.execute("BEGIN")
        try admin.execute("UPDATE \"User\" SET email = 'a@x' WHERE id = 'u1'")
        try admin.execute("UPDATE \"User\" SET email = 'b@x' WHERE id = 'u2'")
        try admin.execute("COMMIT")
        do {
            try admin.execute("INSERT INTO \"User\" (id, name, email, age, status) VALUES ('u3', 'Copy', 'a@x', 0, 'active')")
            Issue.record("the database kept a duplicate email")
        } catch let PostgresError.statementFailed(_, _, state, _) {
            #expect(state == "23505")
        }
    }

    /// The commit log keeps the last ``CommitLog/retainedCommits`` commits, writes
    /// forgetting the ones that fell out (every ``PostgreSQLBackend/pruneEvery`` commits),
    /// also those a store opening finds left behind.
    /// Messages sent to a long chat reach a follower as the chat's new links only
    /// (`lastTargets`, one statement for every list appended to).
    @Test func aListAppendedToIsFollowedByItsNewLinksOnly() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "appends")
        let writer = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        let follower = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        let problems = try ListAppendFollowing.check(writer: writer, follower: follower)
        #expect(problems.isEmpty, "\(problems)")
    }

    /// A store writing on demand numbers its commits one after another (reading the last
    /// one with its schema check, not again before its commit): a resident store follows
    /// each from the log, never finding a gap that would make it load the graph again.
    @Test func commitsWrittenOnDemandAreNumberedWithoutGaps() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "numbering")
        let writer = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        let follower = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .resident))
        var random = SplitMix64(seed: 17)
        for _ in 0..<40 {
            _ = try? writer.write(RandomChatWrite.next(&random).apply)
            try follower.refresh()
        }
        #expect(try ChatGraphText.of(follower.context) == writer.read { try ChatGraphText.of($0) })
        #expect(follower.catchUps.reloaded == 0 && follower.catchUps.followed > 20, "\(follower.catchUps)")
        let connection = try PostgresConnection(configuration)
        defer { connection.close() }
        let numbers = try connection.execute("SELECT count(DISTINCT \"commit\"), min(\"commit\"), max(\"commit\") FROM \"schemagen:commits\"")
        #expect(numbers.first.map { $0[0] == $0[2] && $0[1] == .integer(1) } == true, "\(numbers)")
    }

    @Test func theCommitLogKeepsItsLastCommitsOnly() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "retention")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        let retained = Int(CommitLog.retainedCommits)
        for index in 0..<(retained + 30) {
            try store.write { context in try User(id: "u\(index % 5)", name: "\(index)").save(to: &context) }
        }
        store.close()
        let connection = try PostgresConnection(configuration)
        func span() throws -> [StoredValue] {
            try connection.execute("SELECT min(\"commit\"), max(\"commit\"), count(DISTINCT \"commit\") FROM \"schemagen:commits\"")[0]
        }
        let (first, last) = try (span()[0], span()[1])
        guard case .integer(let newest) = last, case .integer(let count) = try span()[2] else { Issue.record("no commits: \(first)"); return }
        // Pruned every few commits: up to that many more are kept meanwhile, never a gap.
        #expect(count >= Int64(retained) && count < Int64(retained) + PostgreSQLBackend.pruneEvery, "\(count)")
        #expect(try span() == [.integer(newest - count + 1), .integer(newest), .integer(count)])
        // Entries an older version left behind go when a writer opens.
        try connection.execute("INSERT INTO \"schemagen:commits\" (\"commit\", kind, name, id) VALUES (1, 'row', 'User', 's:u0')")
        try Store(.postgres(configuration), schema: ChatModelsSchema.self).close()
        #expect(try span() == [.integer(newest - Int64(retained) + 1), .integer(newest), .integer(Int64(retained))])
    }

    @Test func openingWhatIsNotAStoreIsATypedErrorThatChangesNothing() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try Self.database(cluster, "other")
        let connection = try PostgresConnection(configuration)
        defer { connection.close() }
        try connection.execute("CREATE TABLE invoices (id bigint PRIMARY KEY)")
        do {
            _ = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
            Issue.record("opened a database holding other tables")
        } catch let StoreError.notAStore(path, reason) {
            #expect(path == configuration.description && reason.contains("invoices"))
        }
        let tables = try connection.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        #expect(tables == [[.text("invoices")]])
        // No such database: the connection's typed error, naming the server and the database.
        #expect(throws: PostgresError.self) { try Store(.postgres(cluster.configuration(database: "missing")), schema: ChatModelsSchema.self) }
    }
}
