import DeterministicRandom
import Foundation
import SchemaRuntime
@testable import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// A connection prepares the statements it sends again (``PostgresConnection``): they must
/// answer as unprepared ones do, fail alike, and never run a plan made for tables a schema
/// change replaced.
@Suite(.serialized) struct PreparedStatementTests {
    /// The texts the server holds prepared for this connection.
    private static func preparedTexts(_ connection: PostgresConnection) throws -> [String] {
        try connection.execute("SELECT statement FROM pg_prepared_statements ORDER BY name").compactMap {
            if case .text(let text) = $0[0] { return text }
            return nil
        }
    }

    @Test func aStatementSentAgainIsPreparedAndAnswersAlike() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let connection = try PostgresConnection(cluster.configuration())
        try connection.execute("CREATE TABLE numbers (n bigint PRIMARY KEY, word text NOT NULL)")
        let insert = "INSERT INTO numbers (n, word) VALUES ($1, $2)"
        for n in 0..<20 { try connection.execute(insert, [.integer(Int64(n)), .text("w\(n)")]) }
        let select = "SELECT word FROM numbers WHERE n >= $1 ORDER BY n"
        for start in [0, 5, 19, 20] {
            let words = try connection.execute(select, [.integer(Int64(start))]).map { $0[0] }
            #expect(words == (start..<20).map { .text("w\($0)") })
        }
        // Each text sent more than once is prepared; one sent once is not.
        let texts = try Self.preparedTexts(connection)
        #expect(texts.contains(insert) && texts.contains(select))
        #expect(!texts.contains { $0.hasPrefix("CREATE") })
        // The same through a pipeline, with a text prepared there.
        let batched = "SELECT count(*) FROM numbers WHERE n < $1"
        let rows = try connection.executeBatch([(batched, [.integer(3)]), (batched, [.integer(7)])])
        #expect(rows == [[.integer(7)]])
        #expect(try Self.preparedTexts(connection).contains(batched))
    }

    /// A statement sent behind a batch, its answer dropped (a write's notification), is
    /// prepared too, its preparing among the batch's statements; behind a batch that fails,
    /// the preparing is skipped with them and never recorded, so the text runs again later.
    @Test func aStatementSentBehindABatchIsPreparedWhereItsPreparingIsAnswered() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let connection = try PostgresConnection(cluster.configuration())
        try connection.execute("CREATE TABLE notes (n bigint)")
        let note = "INSERT INTO notes (n) VALUES ($1)"
        for n in 0..<3 {
            #expect(try connection.executeEach([("SELECT 1", [])], thenIgnoringFailure: (note, [.integer(Int64(n))])) == [[[.integer(1)]]])
        }
        // Each ran; the text is prepared.
        #expect(try connection.execute("SELECT n FROM notes ORDER BY n") == [[.integer(0)], [.integer(1)], [.integer(2)]])
        #expect(try Self.preparedTexts(connection).contains(note))

        let other = "INSERT INTO notes (n) VALUES ($1 + 100)"
        for _ in 0..<3 {
            #expect(throws: PostgresError.self) {
                try connection.executeEach([("SELECT n FROM missing", [])], thenIgnoringFailure: (other, [.integer(1)]))
            }
        }
        #expect(try !Self.preparedTexts(connection).contains(other))
        // Behind batches that succeed it runs every time, prepared from its second run on.
        let before = try connection.execute("SELECT count(*) FROM notes WHERE n = 101")
        for _ in 0..<3 { _ = try connection.executeEach([("SELECT 1", [])], thenIgnoringFailure: (other, [.integer(1)])) }
        let after = try connection.execute("SELECT count(*) FROM notes WHERE n = 101")
        guard case .integer(let runsBefore)? = before.first?.first, case .integer(let runsAfter)? = after.first?.first else {
            Issue.record("no counts: \(before), \(after)")
            return
        }
        #expect(runsAfter - runsBefore == 3)
        #expect(try Self.preparedTexts(connection).contains(other))
    }

    /// A connection that counts more pipelines unanswered than it sent (its count out of
    /// step with libpq's) finds libpq's answers ended and throws, counting as lost, instead
    /// of asking libpq for the missing answers forever.
    @Test func answersEndingBeforeWhatWasSentLoseTheConnectionInsteadOfWaitingForever() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let connection = try PostgresConnection(cluster.configuration())
        connection.sendWithoutWaiting("SELECT 1")
        connection.unansweredPipelines += 1
        #expect(throws: PostgresError.self) { try connection.execute("SELECT 2") }
        #expect(!connection.isConnected)
        // A connection in step reads what it sent without waiting, and goes on.
        let other = try PostgresConnection(cluster.configuration())
        other.sendWithoutWaiting("SELECT 1")
        #expect(try other.execute("SELECT 2") == [[.integer(2)]])
        #expect(other.isConnected)
    }

    /// The check every statement sent goes through (a schema change forgets the prepared
    /// texts) answers as splitting off the first word and uppercasing it would.
    @Test(arguments: [1, 2] as [UInt64])
    func aStatementChangesTheSchemaExactlyWhenItsFirstWordSaysSo(seed: UInt64) {
        func reference(_ sql: String) -> Bool {
            let head = sql.prefix { !$0.isWhitespace }.uppercased()
            return head == "CREATE" || head == "ALTER" || head == "DROP"
        }
        var cases = ["CREATE TABLE t (a int)", "create index on t (a)", "Alter table t", "DROP TABLE t", "drop\tx", "CREATE\nTABLE",
                     "DROPS", "CREATED TABLE", "ALTERED", "SELECT 1", "INSERT INTO \"CREATE\" VALUES (1)", "", " CREATE TABLE t",
                     "DROP", "CREAT", "ÄLTER TABLE", "WITH x AS (DELETE FROM t) DROP"]
        var random = SplitMix64(seed: seed)
        let pieces = ["C", "r", "E", "a", "T", "e", "D", "R", "O", "P", "L", "t", " ", "\n", "x", "é"]
        for _ in 0..<2_000 {
            cases.append((0..<Int.random(in: 0...8, using: &random)).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &random)] }.joined())
        }
        for sql in cases { #expect(PreparedStatements.changesSchema(sql) == reference(sql), "\(sql.debugDescription)") }
        #expect(cases.contains { PreparedStatements.changesSchema($0) } && cases.contains { !PreparedStatements.changesSchema($0) })
    }

    @Test func aFailingStatementFailsAlikeWhetherPreparedOrNot() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let connection = try PostgresConnection(cluster.configuration())
        let missing = "SELECT n FROM missing WHERE n = $1"
        func state(_ body: () throws -> Void) -> String? {
            do {
                try body()
                return nil
            } catch PostgresError.statementFailed(_, _, let state, _) {
                return state
            } catch {
                return "\(error)"
            }
        }
        // The first time unnamed, the second time while preparing it, in and out of pipelines.
        for _ in 0..<3 { #expect(state { try connection.execute(missing, [.integer(1)]) } == "42P01") }
        for _ in 0..<3 { #expect(state { try connection.executeBatch([("SELECT 1", []), (missing, [.integer(1)])]) } == "42P01") }
        // Inside a transaction, where a failed prepare aborts it: still the statement's error.
        let other = "SELECT n FROM missing WHERE n > $1"
        #expect(state { try connection.execute(other, [.integer(1)]) } == "42P01")
        try connection.execute("BEGIN")
        #expect(state { try connection.execute(other, [.integer(1)]) } == "42P01")
        try connection.execute("ROLLBACK")
        // Nothing was recorded as prepared: once the table exists, the text runs.
        try connection.execute("CREATE TABLE missing (n bigint)")
        try connection.execute("INSERT INTO missing (n) VALUES (1)")
        #expect(try connection.execute(missing, [.integer(1)]) == [[.integer(1)]])
        #expect(try connection.executeBatch([(missing, [.integer(1)])]) == [[.integer(1)]])
    }

    @Test func aSchemaChangeForgetsWhatWasPrepared() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let connection = try PostgresConnection(cluster.configuration())
        try connection.execute("CREATE TABLE things (id bigint)")
        try connection.execute("INSERT INTO things (id) VALUES (1)")
        let all = "SELECT * FROM things"
        for _ in 0..<3 { #expect(try connection.execute(all) == [[.integer(1)]]) }
        // A plan made before would now fail ("cached plan must not change result type").
        try connection.execute("ALTER TABLE things ADD COLUMN label text NOT NULL DEFAULT 'x'")
        for _ in 0..<3 { #expect(try connection.execute(all) == [[.integer(1), .text("x")]]) }
        try connection.execute("DROP TABLE things")
        try connection.execute("CREATE TABLE things (id text)")
        try connection.execute("INSERT INTO things (id) VALUES ('a')")
        for _ in 0..<3 { #expect(try connection.execute(all) == [[.text("a")]]) }
    }

    /// Past ``PreparedStatements/limit`` texts, the next one to prepare drops them all first,
    /// and preparing goes on: a connection never ends up running its new texts unprepared.
    @Test func pastTheLimitTheTextsAreDroppedAndPreparingGoesOn() throws {
        var names = PreparedStatements()
        for text in 0..<PreparedStatements.limit {
            let first = names.nameToPrepare("SELECT \(text)")
            #expect(first == nil)
            let second = names.nameToPrepare("SELECT \(text)")
            let (name, droppingAll) = try #require(second)
            #expect(!droppingAll)
            names.prepared("SELECT \(text)", as: name)
        }
        let first = names.nameToPrepare("SELECT -1")
        #expect(first == nil)
        let second = names.nameToPrepare("SELECT -1")
        let (name, droppingAll) = try #require(second)
        #expect(droppingAll && names.name(of: "SELECT 0") == nil)
        names.prepared("SELECT -1", as: name)
        #expect(names.name(of: "SELECT -1") == name)

        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let connection = try PostgresConnection(cluster.configuration())
        // Each text twice: past the limit by statements alone, then past it again in pipelines.
        let texts = (0..<(PreparedStatements.limit * 2 + 20)).map { "SELECT \($0)::bigint + $1" }
        for (index, text) in texts.enumerated() {
            for _ in 0..<2 {
                if index < PreparedStatements.limit + 10 {
                    #expect(try connection.execute(text, [.integer(1)]) == [[.integer(Int64(index + 1))]])
                } else {
                    let answers = try connection.executeEach([(text, [.integer(2)]), ("SELECT $1::bigint", [.integer(7)])])
                    #expect(answers == [[[.integer(Int64(index + 2))]], [[.integer(7)]]])
                }
            }
            if index == PreparedStatements.limit + 10 {
                let prepared = try Self.preparedTexts(connection)
                #expect(prepared.count <= PreparedStatements.limit && prepared.contains(texts[index - 1]) && !prepared.contains(texts[0]))
            }
        }
        let prepared = try Self.preparedTexts(connection)
        #expect(prepared.count <= PreparedStatements.limit)
        #expect(prepared.contains(texts[texts.count - 1]) && !prepared.contains(texts[PreparedStatements.limit + 10]))
    }
}
