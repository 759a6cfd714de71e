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
}
