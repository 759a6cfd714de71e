import ChatModels
import Foundation
import SchemaRuntime
@_spi(SchemaStoreTesting) @testable import SchemaStore
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// A write on demand on a server reads before it takes the write lock
/// (``StoreBackend/transactionValidatingReads(_:_:)``): another store commits while its
/// closure runs (each test commits from inside the closure, which would wait for the lock
/// until its timeout if the lock were held), and the write commits only if that commit
/// changed nothing it read; else it runs again on the new state.
@Suite(.serialized) struct UnlockedReadWriteTests {
    struct Missing: Error {}

    /// Two stores reading on demand on a fresh database, seeded (`AssumedNewWriteTests.seed`).
    static func stores(_ cluster: TemporaryPostgresCluster, _ name: String) throws -> (Store, Store, PostgresConnection.Configuration) {
        let (first, configuration) = try AssumedNewWriteTests.store(cluster, name)
        try AssumedNewWriteTests.seed(first)
        try first.write { context in
            try User(id: "u2", name: "Bob").save(to: &context)
            try Chat(id: "c2", title: "random").save(to: &context)
        }
        let second = try Store(.postgres(configuration), schema: ChatModelsSchema.self,
                               options: Store.Options(lockTimeout: 2, residency: .onDemand))
        return (first, second, configuration)
    }

    /// Runs `body` in a write of `store` that renames user u1 to what it read plus "!",
    /// calling `meanwhile` in the runs that found u1, until it has been called `times`
    /// times; returns how many runs found u1.
    static func renameU1(in store: Store, meanwhile times: Int = 1, _ meanwhile: () throws -> Void) throws -> Int {
        var runs = 0
        try store.write { context in
            guard var user = User.query("u1", in: context).resolve() else { throw Missing() }
            runs += 1
            if runs <= times { try meanwhile() }
            user.name += "!"
            try user.save(to: &context)
        }
        return runs
    }

    @Test func aWriteWhoseReadAnotherCommitChangedRunsAgainOnTheNewState() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, other, _) = try Self.stores(cluster, "unlockedlost")
        let before = store.onDemandStatistics
        let runs = try Self.renameU1(in: store) {
            try other.write { try User(id: "u1", name: "Ann B.").save(to: &$0) }
        }
        // Not "Ann!": the other store's commit is not lost.
        #expect(try other.read { User.query("u1", in: $0).resolve()?.name } == "Ann B.!")
        #expect(runs == 2)
        let after = store.onDemandStatistics
        #expect(after.writesReadingUnlockedRetried - before.writesReadingUnlockedRetried == 1, "\(after)")
    }

    /// A write of many new attachments asks whether their table is empty instead of reading
    /// each (``OnDemandWrite``): another store's attachment meanwhile makes it run again,
    /// and it updates that one rather than insert it twice.
    @Test func aTableFoundEmptyThatAnotherCommitFilledIsReadAgain() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, other, _) = try Self.stores(cluster, "unlockedempty")
        // An update first: the writes after it read before they assume (WriteAttemptPolicy).
        _ = try Self.renameU1(in: store) {}
        let before = store.onDemandStatistics
        var runs = 0
        try store.write { context in
            runs += 1
            try (0..<OnDemandWrite.emptinessWorthAsking * 2).map { Attachment(id: "a\($0)", kind: .file) }.save(to: &context)
            // Found empty; then filled.
            if runs == 1 { try other.write { try Attachment(id: "a5", kind: .video).save(to: &$0) } }
        }
        #expect(runs == 2)
        #expect(store.onDemandStatistics.writesReadingUnlockedRetried - before.writesReadingUnlockedRetried == 1)
        #expect(try other.read { Attachment.query("a5", in: $0).resolve()?.kind } == .file)
        #expect(try other.read { Attachment.query(in: $0).count() } == OnDemandWrite.emptinessWorthAsking * 2)
    }

    /// Many new users into an empty table: the write asks once whether it is empty, and
    /// then looks up neither their rows nor who holds their emails. Another store's user
    /// meanwhile, with one of those emails, makes it run again and collide (a typed error).
    @Test func aUniqueValueTakenInATableFoundEmptyIsFoundUnderTheLock() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, configuration) = try AssumedNewWriteTests.store(cluster, "unlockedemptyunique")
        let other = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(lockTimeout: 2, residency: .onDemand))
        // Only the store's check stands between two users and one email.
        let admin = try PostgresConnection(configuration)
        defer { admin.close() }
        _ = try admin.execute("ALTER TABLE \"User\" DROP CONSTRAINT \"User:unique:emailUnique\"")
        // An update first: the writes after it read before they assume (WriteAttemptPolicy).
        try store.write { try Chat(id: "c1").save(to: &$0) }
        try store.write { try Chat(id: "c1", title: "renamed").save(to: &$0) }
        var runs = 0
        let outcome = Result {
            try store.write { context in
                runs += 1
                try (0..<OnDemandWrite.emptinessWorthAsking * 2).map { User(id: "u\($0)", name: "User", email: "e\($0)@x") }.save(to: &context)
                // Found empty; then one of the emails taken.
                if runs == 1 { try other.write { try User(id: "x", name: "Eve", email: "e5@x").save(to: &$0) } }
            }
        }
        #expect(runs == 2)
        guard case .failure(let error) = outcome else {
            Issue.record("two users hold one email")
            return
        }
        #expect(error is UniqueConstraintViolation, "\(error)")
        #expect(try admin.execute("SELECT id FROM \"User\" ORDER BY id") == [[.text("x")]])
    }

    /// A commit of many users logs their ids as one set (``CommitLog/setThreshold``): the
    /// one this write read is found in it.
    @Test func aReadChangedAmongManyIsFoundInItsSet() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, other, _) = try Self.stores(cluster, "unlockedset")
        let runs = try Self.renameU1(in: store) {
            try other.write { context in
                for index in 0..<CommitLog.setThreshold { try User(id: "bulk\(index)", name: "Bulk").save(to: &context) }
                try User(id: "u1", name: "Ann B.").save(to: &context)
            }
        }
        #expect(runs == 2)
        #expect(try other.read { User.query("u1", in: $0).resolve()?.name } == "Ann B.!")
    }

    /// More commits meanwhile than the log keeps: what they changed cannot be told, so the
    /// write runs again, though none of them touched what it read.
    @Test func commitsPastWhatTheLogKeepsCountAsChangingEverything() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, other, _) = try Self.stores(cluster, "unlockedpruned")
        let commits = Int(CommitLog.retainedCommits + 2 * PostgreSQLBackend.pruneEvery)
        let runs = try Self.renameU1(in: store) {
            for index in 0..<commits { try other.write { try Attachment(id: "x\(index)").save(to: &$0) } }
        }
        #expect(runs == 2)
        #expect(try other.read { User.query("u1", in: $0).resolve()?.name } == "Ann!")
    }

    /// Commits to other rows, other lists and other tables change nothing the write read:
    /// it runs once.
    @Test func commitsToWhatTheWriteDidNotReadLetItCommitAtOnce() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, other, _) = try Self.stores(cluster, "unlockedother")
        let meanwhile: [(inout Context) throws -> Void] = [
            { try User(id: "u2", name: "Bob B.").save(to: &$0) },
            { try Message(id: "m2", text: "elsewhere", author: .id("u2"), chat: .id("c2")).save(to: &$0) },
            { try Attachment(id: "x1", kind: .video).save(to: &$0) },
        ]
        for (step, write) in meanwhile.enumerated() {
            let before = store.onDemandStatistics
            let runs = try Self.renameU1(in: store) { try other.write(write) }
            #expect(runs == 1, "step \(step)")
            #expect(store.onDemandStatistics.writesReadingUnlockedRetried == before.writesReadingUnlockedRetried, "step \(step)")
        }
        #expect(try other.read { User.query("u1", in: $0).resolve()?.name } == "Ann!!!")
        #expect(try other.read { User.query("u2", in: $0).resolve()?.name } == "Bob B.")
    }

    /// Two messages sent to one chat: the write that read the chat's list while the other
    /// appended to it runs again, and the list holds both, in commit order.
    @Test func aListAnotherCommitAppendedToIsReadAgain() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, other, _) = try Self.stores(cluster, "unlockedlist")
        var runs = 0
        try store.write { context in
            guard var chat = Chat.query("c1", in: context).with(\.$messages).resolve() else { throw Missing() }
            runs += 1
            if runs == 1 {
                try other.write { try Message(id: "m2", text: "second", author: .id("u2"), chat: .id("c1")).save(to: &$0) }
            }
            chat.title = "\(chat.messages?.count ?? -1) messages"
            try chat.save(to: &context)
            try Message(id: "m3", text: "third", author: .id("u1"), chat: .id("c1")).save(to: &context)
        }
        #expect(runs == 2)
        let chat = try other.read { Chat.query("c1", in: $0).with(\.$messages).resolve() }
        #expect(chat?.title == "2 messages")
        #expect(chat?.messages?.map(\.id) == ["m1", "m2", "m3"])
    }

    /// A unique value free when the write looked, taken by another store's commit before
    /// this one's: the check under the lock finds its holder, and the write runs again and
    /// collides as a write made after that commit does (an email: a typed error).
    @Test func aUniqueValueTakenMeanwhileIsFoundUnderTheLock() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, other, configuration) = try Self.stores(cluster, "unlockedunique")
        // Only the store's check stands between two users and one email.
        let admin = try PostgresConnection(configuration)
        defer { admin.close() }
        _ = try admin.execute("ALTER TABLE \"User\" DROP CONSTRAINT \"User:unique:emailUnique\"")
        var runs = 0
        let outcome = Result {
            try store.write { context in
                guard User.query("u1", in: context).resolve() != nil else { throw Missing() }
                runs += 1
                // Free when looked up; then taken.
                try User(id: "u8", name: "Mallory", email: "shared@x").save(to: &context)
                if runs == 1 { try other.write { try User(id: "u7", name: "Eve", email: "shared@x").save(to: &$0) } }
            }
        }
        #expect(runs == 2)
        guard case .failure(let error) = outcome else {
            Issue.record("two users hold one email")
            return
        }
        #expect(error is UniqueConstraintViolation, "\(error)")
        let holders = try admin.execute("SELECT id FROM \"User\" WHERE email = 'shared@x'")
        #expect(holders == [[.text("u7")]])
    }

    /// A closure that threw on a read another commit then changed: its error does not
    /// count, and it runs again on the new state.
    @Test func aClosureThrowingOnAChangedReadRunsAgain() throws {
        struct Archived: Error {}
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, other, _) = try Self.stores(cluster, "unlockedthrow")
        var runs = 0
        try store.write { context in
            guard let user = User.query("u1", in: context).resolve() else { throw Missing() }
            runs += 1
            if runs == 1 {
                try other.write { try User(id: "u1", name: "Ann", status: .away).save(to: &$0) }
                // What this run read says archived, which a write made now would not.
                throw Archived()
            }
            #expect(user.status == .away)
            try Attachment(id: "x2").save(to: &context)
        }
        #expect(runs == 2)
        // A closure that throws on what holds: its error, at once.
        runs = 0
        #expect(throws: Archived.self) {
            try store.write { context in
                guard User.query("u1", in: context).resolve() != nil else { throw Missing() }
                runs += 1
                throw Archived()
            }
        }
        #expect(runs == 1)
    }

    /// A write whose reads change in every run it makes without the lock: after
    /// ``Store/unlockedAttempts`` runs, it takes the lock first, and commits.
    @Test func aWriteThatKeepsLosingTakesTheLockFirst() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, other, _) = try Self.stores(cluster, "unlockedlosing")
        var renames = 0
        let runs = try Self.renameU1(in: store, meanwhile: Store.unlockedAttempts) {
            renames += 1
            try other.write { try User(id: "u1", name: "Ann \(renames)").save(to: &$0) }
        }
        #expect(runs == Store.unlockedAttempts + 1)
        #expect(try other.read { User.query("u1", in: $0).resolve()?.name } == "Ann \(Store.unlockedAttempts)!")

        // A hot row: the next writes take the lock first (WriteAttemptPolicy), then one
        // probes with one run reading before it: here its read changed too, and it takes
        // the lock. The next probe comes twice as many writes later, and commits.
        let before = store.onDemandStatistics.writesReadingUnlocked
        for _ in 0..<WriteAttemptPolicy.shortestBackoff { _ = try Self.renameU1(in: store) {} }
        #expect(store.onDemandStatistics.writesReadingUnlocked == before)
        let probe = try Self.renameU1(in: store) { try other.write { try User(id: "u1", name: "Ann again").save(to: &$0) } }
        #expect(probe == 2)
        #expect(store.onDemandStatistics.writesReadingUnlocked == before + 1)
        for _ in 0..<WriteAttemptPolicy.shortestBackoff * 2 { _ = try Self.renameU1(in: store) {} }
        #expect(try Self.renameU1(in: store) {} == 1)
        #expect(store.onDemandStatistics.writesReadingUnlocked == before + 2)
        #expect(store.onDemandStatistics.writesReadingUnlockedRetried == Store.unlockedAttempts + 1)
    }
}
