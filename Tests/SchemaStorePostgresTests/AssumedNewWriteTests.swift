import ChatModels
import Foundation
import SchemaRuntime
@_spi(SchemaStoreTesting) @testable import SchemaStore
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// A write on demand on a server that assumes the entities it loads are new
/// (``WriteAttemptPolicy``): one round trip when they are, and the same outcome as a write
/// that reads first when they are not, whatever made the assumption wrong.
@Suite(.serialized) struct AssumedNewWriteTests {
    /// A store reading on demand on a fresh database of `cluster`, and the database.
    static func store(_ cluster: TemporaryPostgresCluster, _ name: String) throws -> (Store, PostgresConnection.Configuration) {
        let configuration = try cluster.createDatabase(name)
        return (try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand)), configuration)
    }

    /// A user, a chat and a message that the tests' writes link to.
    static func seed(_ store: Store) throws {
        try store.write { context in
            try User(id: "u1", name: "Ann").save(to: &context)
            try Chat(id: "c1", title: "general").save(to: &context)
            try Message(id: "m1", text: "first", editedAt: Date(timeIntervalSince1970: 5), tags: ["a"], author: .id("u1"), chat: .id("c1"))
                .save(to: &context)
        }
    }

    /// A write that saves a new message, deletes it and saves another: taking what it loads
    /// for new fails (the deleted message's author exists), after the write sent statements
    /// ahead past the failed check. The write runs again reading first and commits, as on a
    /// SQLite store; before, its ROLLBACK was skipped behind those statements and the run
    /// reading first failed in the aborted transaction (SQLSTATE 25P02), which a soak of the
    /// ranked full-text workload found (seed 1,000).
    @Test func aWriteWhoseAssumptionFailsAfterStatementsWentAheadRunsAgainAndCommits() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, _) = try Self.store(cluster, "assumedaborted")
        try Self.seed(store)
        let before = store.onDemandStatistics
        try store.write { context in
            try Message(id: "m52", text: "query, store", author: .id("u1"), chat: .id("c1")).save(to: &context)
            try Message(id: "m52", text: "").delete(from: &context)
            try Message(id: "m58", text: "store, query, store", author: .id("u1"), chat: .id("c1")).save(to: &context)
        }
        let after = store.onDemandStatistics
        #expect(after.writesAssumingNewRetried - before.writesAssumingNewRetried == 1, "\(after)")
        let messages = try store.read { context in Message.query(in: context).resolve().map(\.id) }
        #expect(messages == ["m1", "m58"])
        let listed = try store.read { context in Chat.query("c1", in: context).related(\.$messages).resolve().map(\.id) }
        #expect(listed == ["m1", "m58"])
        // The connection is clean: the next write commits in one round trip.
        try store.write { context in try Attachment(id: "a1", kind: .file).save(to: &context) }
        #expect(store.onDemandStatistics.writesAssumingNewRetried == after.writesAssumingNewRetried)
    }

    @Test func newEntitiesAreWrittenWithoutReadingFirst() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, _) = try Self.store(cluster, "assumednew")
        try Self.seed(store)
        let before = store.onDemandStatistics
        for index in 0..<10 {
            try store.write { context in try Attachment(id: "a\(index)", kind: .file).save(to: &context) }
        }
        let after = store.onDemandStatistics
        #expect(after.writesAssumingNew - before.writesAssumingNew == 10, "\(after)")
        #expect(after.writesAssumingNewRetried == before.writesAssumingNewRetried)
        // Nothing read before the commits: one round trip each.
        #expect(after.writeReads == before.writeReads, "\(after)")
        let kinds = try store.read { context in Attachment.query(in: context).resolve().map(\.kind) }
        #expect(kinds == Array(repeating: .file, count: 10))
    }

    /// A new user with unique fields: no other user holds them, taken so without reading,
    /// as its row is. When another does hold one, the write runs again reading first: a
    /// username held (`onCollision: upsert`) and an email held (a typed error) end as on a
    /// SQLite store fed the same writes.
    @Test func uniqueFieldsOfANewEntityAreTakenForFreeAndCheckedSo() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, configuration) = try Self.store(cluster, "assumedunique")
        // Without the database's own constraint (as for a unique index over a Double, which
        // it cannot enforce alike), only the store's check stands between a new user and a
        // username another holds.
        let admin = try PostgresConnection(configuration)
        defer { admin.close() }
        _ = try admin.execute("ALTER TABLE \"User\" DROP CONSTRAINT \"User:unique:usernameUnique\"")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("assumed-unique-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = try Store(.file(folder.appendingPathComponent("users.store")), schema: ChatModelsSchema.self,
                             options: Store.Options(residency: .onDemand))
        for target in [store, file] { try Self.seed(target) }
        let before = store.onDemandStatistics
        try store.write { try User(id: "u2", name: "Grace", username: "grace", email: "grace@x").save(to: &$0) }
        try file.write { try User(id: "u2", name: "Grace", username: "grace", email: "grace@x").save(to: &$0) }
        let after = store.onDemandStatistics
        #expect(after.writesAssumingNew == before.writesAssumingNew + 1 && after.writeReads == before.writeReads, "\(after)")

        // The first collides while assuming; the next ones read first (the policy backs
        // off), and end alike too.
        let writes: [(inout Context) throws -> Void] = [
            { try User(id: "u3", name: "Grace H.", username: "grace").save(to: &$0) },
            { try User(id: "u1", name: "Ann", email: "ann@x").save(to: &$0, options: .fragment) },
            { try User(id: "u4", name: "Eve", email: "ann@x").save(to: &$0) },
            { try User(id: "u5", name: "Mallory", username: "mal", email: "grace@x").save(to: &$0) },
        ]
        for (step, write) in writes.enumerated() {
            let expected = Result { try file.write(write) }, actual = Result { try store.write(write) }
            #expect("\(expected)" == "\(actual)", "step \(step)")
            let users = { (target: Store) in
                try target.read { context in User.query(in: context).resolve().map { "\($0.id) \($0.name) \($0.username ?? "-") \($0.email ?? "-")" }.sorted() }
            }
            #expect(try users(store) == users(file), "step \(step)")
            if step == 0 { #expect(store.onDemandStatistics.writesAssumingNewRetried == after.writesAssumingNewRetried + 1) }
        }
    }

    /// A fragment saved for a message that exists: taken for new, it would replace the
    /// stored message; the check finds its row, and the write runs again on it.
    @Test func anEntityThatExistsIsMergedWithWhatIsStored() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, _) = try Self.store(cluster, "assumedexisting")
        try Self.seed(store)
        let before = store.onDemandStatistics
        var runs = 0
        try store.write { context in
            runs += 1
            try Message(id: "m1", text: "edited", tags: ["b"], author: .id("u1"), chat: .id("c1")).save(to: &context, options: .fragment)
        }
        let message = try store.read { context in Message.query("m1", in: context).resolve() }
        #expect(message?.text == "edited")
        #expect(message?.tags == ["a", "b"])
        #expect(message?.editedAt == Date(timeIntervalSince1970: 5))
        let after = store.onDemandStatistics
        #expect(after.writesAssumingNewRetried - before.writesAssumingNewRetried == 1, "\(after)")
        #expect(runs == 2)
        // The writes after a failed assumption read first.
        try store.write { context in try Attachment(id: "a1").save(to: &context) }
        #expect(store.onDemandStatistics.writesAssumingNew == after.writesAssumingNew)
    }

    /// A row that another program inserted without logging a commit: the last commit the
    /// store knows is still the last, so only the check of the assumed reads finds it.
    @Test func aRowWrittenBehindTheStoresBackIsFoundByTheCheck() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, configuration) = try Self.store(cluster, "assumedbehind")
        try Self.seed(store)
        let connection = try PostgresConnection(configuration)
        defer { connection.close() }
        _ = try connection.execute("INSERT INTO \"Attachment\" (id, kind, url) VALUES ('a9', 'video', 'https://example.com/v')")
        try store.write { context in try Attachment(id: "a9", kind: .file, message: .id("m1")).save(to: &context) }
        let attachment = try store.read { context in Attachment.query("a9", in: context).with(\.$message).resolve() }
        #expect(attachment?.kind == .file)
        #expect(attachment?.message?.id == "m1")
        #expect(store.onDemandStatistics.writesAssumingNewRetried == 1)
        let rows = try connection.execute("SELECT count(*) FROM \"Attachment\" WHERE id = 'a9'")
        #expect(rows.first?.first == .integer(1))
    }

    /// A closure that throws when what it looks up is missing: the entity taken for new
    /// exists, so the write runs again, finds it, and commits.
    @Test func aClosureThrowingOnWhatItAssumedRunsAgainOnWhatIsStored() throws {
        struct Missing: Error {}
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, _) = try Self.store(cluster, "assumedthrow")
        try Self.seed(store)
        try store.write { context in
            guard var message = Message.query("m1", in: context).resolve() else { throw Missing() }
            message.text = "found"
            try message.save(to: &context)
        }
        #expect(try store.read { Message.query("m1", in: $0).resolve()?.text } == "found")
        // Missing for real: the closure's error, after it ran on what is stored.
        #expect(throws: Missing.self) {
            try store.write { context in
                guard Message.query("m404", in: context).resolve() != nil else { throw Missing() }
            }
        }
    }

    /// Another store made what this write assumed missing: the check finds it, the write
    /// runs again reading first, and both stores' commits hold.
    @Test func aCommitOfAnotherStoreFirstMakesTheWriteRunAgain() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, configuration) = try Self.store(cluster, "assumedstale")
        try Self.seed(store)
        let other = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        try other.write { context in try Attachment(id: "x", kind: .video).save(to: &context) }
        try store.write { context in try Attachment(id: "x", kind: .file, url: URL(string: "https://example.com/x")).save(to: &context) }
        let attachment = try other.read { Attachment.query("x", in: $0).resolve() }
        #expect(attachment?.kind == .file)
        #expect(attachment?.url == URL(string: "https://example.com/x"))
        #expect(store.onDemandStatistics.writesAssumingNewRetried == 1)
    }

    /// Two stores on demand creating entities in turn: each commit is numbered by the server
    /// (no write is refused because the other committed first), in order and without gaps,
    /// the log is pruned as for any writer, and a resident store follows every commit from
    /// the log, never loading the graph whole.
    @Test func commitsNumberedByTheServerFollowOneAnotherWithoutGaps() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (first, configuration) = try Self.store(cluster, "assumednumbers")
        try Self.seed(first)
        let second = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        let follower = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        let retained = Int(CommitLog.retainedCommits)
        let writes = retained + 40
        for index in 0..<writes {
            try (index % 2 == 0 ? first : second).write { try Attachment(id: "a\(index)").save(to: &$0) }
            if index % 10 == 9 { try follower.refresh() }
        }
        try follower.refresh()
        for store in [first, second] {
            let statistics = store.onDemandStatistics
            #expect(statistics.writesAssumingNew >= writes / 2 && statistics.writesAssumingNewRetried == 0, "\(statistics)")
        }
        #expect(Attachment.query(in: follower.context).count() == writes)
        #expect(follower.catchUps.reloaded == 0 && follower.catchUps.followed > writes / 20, "\(follower.catchUps)")
        let connection = try PostgresConnection(configuration)
        defer { connection.close() }
        let span = try connection.execute("SELECT min(\"commit\"), max(\"commit\"), count(DISTINCT \"commit\") FROM \"schemagen:commits\"")[0]
        // The seed's commit, then one per write; pruned to the last ones kept, never a gap.
        guard case .integer(let oldest) = span[0], case .integer(let count) = span[2] else { Issue.record("no commits: \(span)"); return }
        #expect(span[1] == .integer(Int64(writes) + 1))
        #expect(oldest + count - 1 == Int64(writes) + 1 && count < Int64(retained) + PostgreSQLBackend.pruneEvery, "\(span)")
    }
}
