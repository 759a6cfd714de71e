import DeterministicRandom
import Foundation
import SchemaRuntime
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// A write's first statements go to the server before the rest of its batch is spelled
/// (``PostgresConnection/sendAhead(_:)``): the batch that follows must answer as if they had
/// gone with it, fail when they failed, and a batch that never comes must leave the
/// connection as usable as before.
@Suite(.serialized) struct StatementsSentAheadTests {
    private typealias Statement = (sql: String, parameters: [StoredValue])

    /// The SQLSTATE of a failed statement, or a description of another error.
    private static func state(_ error: any Error) -> String {
        if case .statementFailed(_, _, let state, _)? = error as? PostgresError { return state }
        return "\(error)"
    }

    private static func count(_ connection: PostgresConnection) throws -> Int64 {
        guard case .integer(let count)? = try connection.execute("SELECT count(*) FROM rows").first?.first else { return -1 }
        return count
    }

    /// Random transactions, each split at a random place between statements sent ahead and
    /// the batch behind them, some failing at a random statement: after each, the table holds
    /// exactly the rows of the transactions that committed, and every answer is where the
    /// statements' order puts it.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func aBatchAnswersAndFailsAsIfItsStatementsSentAheadWentWithIt(seed: UInt64) throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let connection = try PostgresConnection(cluster.configuration())
        try connection.execute("CREATE TABLE rows (n bigint PRIMARY KEY)")
        var random = SplitMix64(seed: seed)
        var committed: Int64 = 0
        var next: Int64 = 0
        for round in 0..<120 {
            // BEGIN, inserts each followed by a count, maybe a statement that fails, COMMIT.
            var statements: [Statement] = [("BEGIN", [])]
            var expected: [[[StoredValue]]] = [[]]
            let inserts = Int.random(in: 0...4, using: &random)
            let failAt = Bool.random(using: &random) ? Int.random(in: 0...inserts, using: &random) : nil
            for insert in 0...inserts {
                if insert == failAt {
                    statements.append(("SELECT 1 / $1::bigint", [.integer(0)]))
                }
                guard insert < inserts else { break }
                next += 1
                statements.append(("INSERT INTO rows (n) VALUES ($1)", [.integer(next)]))
                expected.append([])
                statements.append(("SELECT count(*) FROM rows", []))
                expected.append([[.integer(committed + Int64(insert) + 1)]])
            }
            statements.append(("COMMIT", []))
            expected.append([])
            let split = Int.random(in: 0...statements.count, using: &random)
            do {
                let sent = try connection.sendAhead(Array(statements[..<split]))
                #expect(sent)
                // Now and then a batch of nothing but what went ahead.
                let answers = try connection.executeEach(Array(statements[split...]))
                #expect(failAt == nil, "round \(round): a failure went unreported")
                #expect(answers.count == expected.count && answers == expected, "round \(round), split at \(split)")
                committed += Int64(inserts)
            } catch {
                #expect(failAt != nil && Self.state(error) == "22012", "round \(round): \(error)")
                try connection.execute("ROLLBACK")
            }
            #expect(try Self.count(connection) == committed, "round \(round)")
        }
    }

    /// A write that fails before its batch goes (its closure threw) rolls back: the
    /// statements it sent ahead are answered and dropped, and the connection works on.
    @Test func statementsSentAheadOfABatchThatNeverCameAreDroppedByTheNextStatement() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let connection = try PostgresConnection(cluster.configuration())
        try connection.execute("CREATE TABLE rows (n bigint PRIMARY KEY)")
        for n in 1...3 {
            #expect(try connection.sendAhead([("BEGIN", []), ("INSERT INTO rows (n) VALUES ($1)", [.integer(Int64(n))])]))
            try connection.execute("ROLLBACK")
            #expect(try Self.count(connection) == 0)
        }
        // Even a failing one: the rollback succeeds, and so does what follows.
        #expect(try connection.sendAhead([("BEGIN", []), ("SELECT 1 / 0", [])]))
        try connection.execute("ROLLBACK")
        try connection.execute("INSERT INTO rows (n) VALUES (7)")
        #expect(try Self.count(connection) == 1)
    }

    /// A batch behind statements sent ahead joins their pipeline, so a failure among them
    /// skips it too; once they are given up (``PostgresConnection/discardSentAhead()``, what
    /// a failed write does), the next batch runs on its own: its `ROLLBACK` ends the aborted
    /// transaction, and the connection works on.
    @Test func aBatchAfterStatementsSentAheadAreGivenUpRunsOnItsOwn() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let connection = try PostgresConnection(cluster.configuration())
        try connection.execute("CREATE TABLE rows (n bigint PRIMARY KEY)")
        let failing: [Statement] = [("BEGIN", []), ("INSERT INTO rows (n) VALUES (1)", []), ("SELECT 1 / 0", [])]
        let after: [Statement] = [("SELECT set_config('application_name', 'x', true)", [])]
        // Joined: the statements sent after the failure, and the batch's ROLLBACK, are skipped.
        #expect(try connection.sendAhead(failing))
        #expect(try connection.sendAhead(after))
        #expect { try connection.executeEach([("ROLLBACK", []), ("SELECT 1", [])]) } throws: { Self.state($0) == "22012" }
        #expect { try connection.executeEach([("SELECT 1", [])]) } throws: { Self.state($0) == "25P02" }
        try connection.execute("ROLLBACK")
        // Given up first: the ROLLBACK runs, then the rest.
        for discardedTwice in [false, true] {
            #expect(try connection.sendAhead(failing))
            #expect(try connection.sendAhead(after))
            try connection.discardSentAhead()
            if discardedTwice { try connection.discardSentAhead() }
            let answers = try connection.executeEach([("ROLLBACK", []), ("SELECT count(*) FROM rows", [])])
            #expect(answers == [[], [[.integer(0)]]])
        }
        try connection.execute("INSERT INTO rows (n) VALUES (7)")
        #expect(try Self.count(connection) == 1)
    }

    /// A `COPY` behind statements sent ahead runs after them, and fails with their failure
    /// instead of running.
    @Test func aCopyBehindStatementsSentAheadRunsAfterThemOrFailsWithThem() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let connection = try PostgresConnection(cluster.configuration())
        try connection.execute("CREATE TABLE rows (n bigint PRIMARY KEY)")
        #expect(try connection.sendAhead([("BEGIN", []), ("INSERT INTO rows (n) VALUES (1)", [])]))
        try connection.copy("COPY rows (n) FROM STDIN", rows: Array("2\n3\n".utf8))
        try connection.execute("COMMIT")
        #expect(try Self.count(connection) == 3)
        #expect(try connection.sendAhead([("BEGIN", []), ("SELECT 1 / 0", [])]))
        #expect { try connection.copy("COPY rows (n) FROM STDIN", rows: Array("4\n".utf8)) } throws: { Self.state($0) == "22012" }
        try connection.execute("ROLLBACK")
        #expect(try Self.count(connection) == 3)
    }
}
