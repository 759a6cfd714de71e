import Foundation
import SchemaRuntime
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// A connection waits for answers by polling and then sleeping on its socket
/// (``AnswerWait``): a slow answer still comes, and a connection the server drops while
/// one waits fails with a typed error instead of waiting on.
@Suite(.serialized) struct AnswerWaitTests {
    @Test func slowAnswersComeWhetherTheConnectionPolledOrSlept() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let connection = try PostgresConnection(cluster.configuration())
        // Quick answers (polled for), then slow ones (slept for), then quick again.
        for round in 0..<3 {
            for n in 0..<20 { #expect(try connection.execute("SELECT $1::bigint", [.integer(Int64(n))]) == [[.integer(Int64(n))]]) }
            let slow = try connection.executeEach([("SELECT pg_sleep(0.05)", []), ("SELECT $1::bigint", [.integer(Int64(round))])])
            #expect(slow.last == [[.integer(Int64(round))]])
            #expect(try connection.execute("SELECT pg_sleep(0.05), 7")[0][1] == .integer(7))
        }
    }

    /// The server ends the connection's process while a statement runs: the wait ends with
    /// the connection, long before the statement would have.
    @Test(arguments: [false, true])
    func aConnectionDroppedDuringAWaitFailsTypedAndAtOnce(inPipeline: Bool) throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let connection = try PostgresConnection(cluster.configuration())
        let admin = try PostgresConnection(cluster.configuration())
        defer { admin.close() }
        guard case .integer(let pid) = try connection.execute("SELECT pg_backend_pid()")[0][0] else {
            Issue.record("no backend pid")
            return
        }
        let terminator = Thread {
            Thread.sleep(forTimeInterval: 0.3)
            _ = try? admin.execute("SELECT pg_terminate_backend($1)", [.integer(pid)])
        }
        terminator.start()
        let started = Date()
        #expect(throws: PostgresError.self) {
            if inPipeline {
                try connection.executeBatch([("SELECT 1", []), ("SELECT pg_sleep(30)", [])])
            } else {
                try connection.execute("SELECT pg_sleep(30)")
            }
        }
        #expect(Date().timeIntervalSince(started) < 15, "the wait outlasted the connection")
        #expect(!connection.isConnected)
    }
}
