import ChatModels
import Foundation
import SchemaRuntime
@_spi(SchemaStoreTesting) @testable import SchemaStore
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// How a store on PostgreSQL hears of commits: on its writers' connection, which listens for
/// them (`CommitListener`), so a store holds one connection, and again on every connection
/// that replaces a lost one.
@Suite(.serialized) struct PostgresCommitListenerTests {
    /// The process ids of the connections to `database`, but `admin`'s.
    static func connections(to database: String, _ admin: PostgresConnection) throws -> [Int64] {
        try admin.execute("SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()", [.text(database)])
            .compactMap { row in if case .integer(let pid) = row[0] { pid } else { nil } }
    }

    /// Waits up to 10 s for `condition`.
    static func eventually(_ condition: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.02)
        }
        return try condition()
    }

    /// A resident store listens on the connection it writes with: one connection to the
    /// server, which still hears another store's commits and its own.
    @Test func aStoreHearsCommitsOnTheOneConnectionItWritesWith() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("oneconnection")
        let admin = try PostgresConnection(cluster.configuration())
        defer { admin.close() }
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        try store.write { try User(id: "own", name: "own").save(to: &$0) }
        // Given time to open another, as the listener once did on its own thread.
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try Self.connections(to: "oneconnection", admin).count == 1)
        #expect(Self.eventually { store.commitNotificationsReceived >= 1 }, "its own commit was not heard")

        let other = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        try other.write { try User(id: "other", name: "other").save(to: &$0) }
        #expect(Self.eventually { store.context.ids(of: User.self).contains("other") })
        // The other store's commit was heard, and its notification checked, or skipped when
        // the check once a second had caught up with it first (its own was skipped).
        #expect(Self.eventually { store.commitNotificationsReceived >= 2 })
        #expect(Self.eventually {
            let checks = store.notifiedCommitChecks
            return checks.ran + checks.skipped >= 2
        }, "\(store.notifiedCommitChecks)")
    }

    /// The server drops an idle store's connection: the store opens another (at its next
    /// check, or a refresh) that listens too, and hears later commits from their
    /// notifications, not only from its checks once a second.
    @Test func anIdleStoreListensAgainOnTheConnectionReplacingALostOne() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("listensagain")
        let admin = try PostgresConnection(cluster.configuration())
        defer { admin.close() }
        let follower = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        do {
            let writer = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
            try writer.write { try User(id: "before", name: "before").save(to: &$0) }
            #expect(Self.eventually { follower.commitNotificationsReceived >= 1 })
            writer.close()
        }
        for pid in try Self.connections(to: "listensagain", admin) {
            try admin.execute("SELECT pg_terminate_backend($1)", [.integer(pid)])
        }
        #expect(try Self.eventually { try Self.connections(to: "listensagain", admin).isEmpty })
        // Connects again (as its check once a second would).
        try follower.refresh()
        #expect(try Self.connections(to: "listensagain", admin).count == 1)
        let heard = follower.commitNotificationsReceived
        let writer = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        for round in 0..<3 {
            try writer.write { try User(id: "after\(round)", name: "after").save(to: &$0) }
        }
        #expect(Self.eventually { follower.commitNotificationsReceived >= heard + 3 }, "\(follower.commitNotificationsReceived) against \(heard)")
        // Counted when heard, applied by the check that follows.
        #expect(Self.eventually { Set(follower.context.ids(of: User.self)) == ["before", "after0", "after1", "after2"] })
    }

    /// A commit's notification goes behind its `COMMIT`, never in its transaction (where it
    /// would hold PostgreSQL's lock on notifications, one for the whole server, until the
    /// commit is flushed): so says the server's log of every statement, for a resident
    /// store's write, one that reads first, and one on demand; another store hears each.
    @Test func aCommitNotifiesOnceItIsMadeNotInItsTransaction() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("notifyafter")
        let admin = try PostgresConnection(cluster.configuration())
        defer { admin.close() }
        try admin.execute("ALTER DATABASE notifyafter SET log_statement = 'all'")
        let listener = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        let resident = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: .init(residency: .resident))
        let onDemand = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: .init(residency: .onDemand))
        // What the notifications say, heard by a connection of its own.
        let ear = try PostgresConnection(configuration)
        defer { ear.close() }
        try ear.listen(CommitListener.channel)
        try resident.write { try User(id: "u1", name: "Ann").save(to: &$0) }
        try onDemand.write { try User(id: "u2", name: "Bob").save(to: &$0) }
        try onDemand.write { context in
            guard var user = context.find(User.self, id: "u1") else { return }
            user.name = "Ann 2"
            try user.save(to: &context)
        }
        #expect(Self.eventually { listener.context.find(User.self, id: "u1")?.name == "Ann 2" && listener.context.find(User.self, id: "u2") != nil })
        // One notification per commit, naming it, whoever numbered it (the resident store's
        // first write numbers its own; the server numbers those on demand). Not always in
        // commit order: a commit's notification runs after it returned, and the next write,
        // on another connection, may notify first (listeners read the log, which is in order).
        var heard: [String] = []
        for _ in 0..<20 where heard.count < 3 { heard += try ear.waitForNotifications(timeout: 0.5) }
        heard.sort { (Int($0) ?? 0) < (Int($1) ?? 0) }
        let commits = try ear.execute("SELECT DISTINCT \"commit\" FROM \(PostgreSQLBackend.commitLogTable) ORDER BY 1")
        #expect(heard == commits.map { row in if case .integer(let number) = row[0] { "\(number)" } else { "?" } }, "\(heard)")
        #expect(heard == ["1", "2", "3"])

        // Per server process, whether a transaction is open as each statement runs.
        let log = try String(contentsOf: cluster.folder.appendingPathComponent("server.log"), encoding: .utf8)
        var open: [Substring: Bool] = [:]
        var notifications = 0, inTransactions = 0
        for line in log.split(separator: "\n") {
            // `LOG:  execute <name>: SQL` (a statement with parameters) or `LOG:  statement: SQL`.
            let executed = line.range(of: "LOG:  execute ").flatMap { start in line[start.upperBound...].range(of: ": ").map { line[$0.upperBound...] } }
            guard let sql = executed ?? line.range(of: "LOG:  statement: ").map({ line[$0.upperBound...] }),
                  let process = line.split(separator: "[").dropFirst().first?.split(separator: "]").first else { continue }
            if sql.hasPrefix("BEGIN") { open[process] = true }
            if sql == "COMMIT" || sql == "ROLLBACK" { open[process] = false }
            if sql.contains("pg_notify") {
                notifications += 1
                if open[process] == true { inTransactions += 1 }
            }
        }
        #expect(notifications >= 3)
        #expect(inTransactions == 0, "\(inTransactions) of \(notifications) notifications were sent inside a write's transaction")
    }

    /// A notification that fails (here refused: the store's role may not notify; in life, a
    /// notification queue that a stuck listener filled) does not fail the write, which
    /// committed: the write returns, and another store sees it at its next check.
    @Test func aNotificationThatFailsDoesNotFailTheCommittedWrite() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("notifyrefused", ownedByNewRole: "notifier", revoking: "pg_notify(text, text)")
        let admin = try PostgresConnection(cluster.configuration(database: "notifyrefused"))
        defer { admin.close() }
        let writer = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: .init(residency: .resident))
        try writer.write { try User(id: "u1", name: "Ann").save(to: &$0) }
        try writer.write { try User(id: "u2", name: "Bob").save(to: &$0) }
        #expect(writer.context.ids(of: User.self).sorted() == ["u1", "u2"])
        #expect(try admin.execute("SELECT count(*) FROM \"User\"").first?.first == .integer(2))
        let reader = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: .init(residency: .resident))
        try writer.write { try User(id: "u3", name: "Cy").save(to: &$0) }
        #expect(Self.eventually { reader.context.ids(of: User.self).contains("u3") })
    }
}
