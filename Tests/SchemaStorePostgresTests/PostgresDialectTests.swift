import ChatModels
import DeterministicRandom
import Foundation
@_spi(SchemaStore) import SchemaRuntime
@testable import SchemaStore
@testable import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// Against a real PostgreSQL server (a throwaway cluster): the connection's typed errors, and
/// the query compiler's two dialects answering alike, and as Swift does.
@Suite(.serialized) struct PostgresDialectTests {
    /// A started cluster, or nil (after saying why) on a machine without PostgreSQL; CI
    /// must have one.
    static func cluster() throws -> TemporaryPostgresCluster? {
        if let cluster = try TemporaryPostgresCluster.start() { return cluster }
        if ProcessInfo.processInfo.environment["CI"] == "true" {
            Issue.record("CI must run the PostgreSQL tests. \(TemporaryPostgresCluster.missingServer)")
        } else {
            print(TemporaryPostgresCluster.missingServer)
        }
        return nil
    }

    @Test func connectionFailuresAreTypedNameTheServerAndNeverTheCredentials() throws {
        guard let cluster = try Self.cluster() else { return }
        defer { cluster.stop() }
        #expect(throws: PostgresError.self) { try PostgresConnection(cluster.configuration(database: "missing")) }
        do {
            _ = try PostgresConnection(cluster.configuration(database: "missing"))
        } catch let PostgresError.cannotConnect(host, database, _) {
            #expect(host == cluster.socketFolder && database == "missing")
        }
        // No server there: an error at once, naming the host, without the password.
        var nowhere = cluster.configuration()
        nowhere.host = "/tmp/no-postgres-server-here"
        nowhere.password = "s3cret-pass"
        let start = Date()
        do {
            _ = try PostgresConnection(nowhere)
            Issue.record("connected to no server")
        } catch let error as PostgresError {
            #expect(error.description.contains("/tmp/no-postgres-server-here"))
            #expect(!error.description.contains("s3cret-pass"))
        }
        #expect(Date().timeIntervalSince(start) < 5)

        // A wrong password: the same typed error, naming the host, database and user's
        // failure, never the password; the right one connects, and a store opens.
        try cluster.addRole("guarded", password: "right-pass")
        var guarded = cluster.configuration()
        guarded.user = "guarded"
        guarded.password = "wr0ng-pass"
        // The server applies its new rules shortly after the reload: tried until refused.
        var refusal: PostgresError?
        let deadline = Date().addingTimeInterval(5)
        while refusal == nil, Date() < deadline {
            do {
                try PostgresConnection(guarded).close()
                Thread.sleep(forTimeInterval: 0.05)
            } catch let error as PostgresError {
                refusal = error
            }
        }
        guard case .cannotConnect(let host, let database, let reason)? = refusal else {
            Issue.record("connected with a wrong password: \(String(describing: refusal))")
            return
        }
        #expect(host == cluster.socketFolder && database == "postgres" && reason.contains("password authentication failed"), "\(reason)")
        #expect(!refusal!.description.contains("wr0ng-pass"))
        #expect(throws: PostgresError.self) { try Store(.postgres(guarded), schema: ChatModelsSchema.self) }
        guarded.password = "right-pass"
        try PostgresConnection(guarded).close()

        let connection = try PostgresConnection(cluster.configuration())
        do {
            try connection.execute("SELECT * FROM \"missing table\"")
            Issue.record("a missing table was read")
        } catch let PostgresError.statementFailed(_, database, state, _) {
            #expect(database == "postgres" && state == "42P01")
        }
        // Every value is bound, whatever it holds.
        let tricky = "it's \"quoted\"; DROP TABLE x; -- é\u{301}"
        let rows = try connection.execute("SELECT $1::bigint, $2::text, $3::double precision, $4::bytea, $5::text",
                                          [.integer(-5), .text(tricky), .real(1.5), .blob(Data([0, 1, 255])), .null])
        #expect(rows == [[.integer(-5), .text(tricky), .real(1.5), .blob(Data([0, 1, 255])), .null]])
        // Column arrays (many rows in one parameter per column) read back exactly.
        let texts: [StoredValue] = [.text(tricky), .text("{a,b}"), .text("\\\"\\"), .null, .text(""), .text("NULL"), .text(" é ")]
        let integers: [StoredValue] = [.integer(.min), .integer(0), .integer(.max), .null, .integer(-1), .integer(7), .integer(42)]
        let unnested = try connection.execute("SELECT * FROM unnest($1::text[], $2::bigint[])",
                                              [.text(ServerArrayLiteral.encode(texts)), .text(ServerArrayLiteral.encode(integers))])
        #expect(unnested == zip(texts, integers).map { [$0, $1] })
        // Reals read back bit for bit (shortest spellings, PostgreSQL rounding correctly), bytes exactly.
        var random = SplitMix64(seed: 5)
        let reals: [StoredValue] = [.real(-0.0), .real(.infinity), .real(-.infinity), .real(.leastNonzeroMagnitude), .real(.greatestFiniteMagnitude),
                                    .real(0.1), .null] + (0..<200).map { _ in .real(Double(bitPattern: UInt64.random(in: 0..<0x7FF0_0000_0000_0000, using: &random))) }
        let blobs: [StoredValue] = reals.indices.map { index in index == 6 ? .null : .blob(Data((0..<(index % 9)).map { UInt8(truncatingIfNeeded: $0 * 37 + index) })) }
        let read = try connection.execute("SELECT * FROM unnest($1::double precision[], $2::bytea[])",
                                          [.text(ServerArrayLiteral.encode(reals)), .text(ServerArrayLiteral.encode(blobs))])
        #expect(read.map { $0[1] } == blobs)
        #expect(read.map { row -> UInt64? in if case .real(let real) = row[0] { real.bitPattern } else { nil } }
                == reals.map { value -> UInt64? in if case .real(let real) = value { real.bitPattern } else { nil } })
        let nan = try connection.execute("SELECT * FROM unnest($1::double precision[])", [.text(ServerArrayLiteral.encode([.real(.nan)]))])
        #expect(nan.count == 1 && { if case .real(let real) = nan[0][0] { real.isNaN } else { false } }())

        // Rows streamed by COPY (a big write's plain inserts) read back exactly too, with
        // COPY's own escapes (tab, newline, carriage return, backslash, `\N`) in the text.
        let copied = texts + ["a\tb\nc\rd", "\\N", "\\", "\t", "\n\n", "é\u{301}\t\\x00"].map(StoredValue.text)
        let copiedRows: [[StoredValue]] = copied.indices.map { index in
            [.integer(Int64(index)), copied[index], integers[index % integers.count], reals[index], blobs[index]]
        }
        try connection.execute("CREATE TEMPORARY TABLE copied (n bigint, t text, i bigint, r double precision, b bytea)")
        try connection.copy("COPY copied FROM STDIN", rows: ServerCopyRows.encode(copiedRows))
        let back = try connection.execute("SELECT n, t, i, r, b FROM copied ORDER BY n")
        #expect(back.map { [$0[0], $0[1], $0[2], $0[4]] } == copiedRows.map { [$0[0], $0[1], $0[2], $0[4]] })
        func bits(_ row: [StoredValue]) -> UInt64? { if case .real(let real) = row[3] { real.bitPattern } else { nil } }
        #expect(back.map(bits) == copiedRows.map(bits))
        // Rows past one piece of what is sent (1 MiB) arrive whole.
        try connection.execute("CREATE TEMPORARY TABLE long (n bigint, t text)")
        let long: [[StoredValue]] = (0..<3000).map { [.integer(Int64($0)), .text(String(repeating: "é", count: 400) + "\($0)")] }
        try connection.copy("COPY long FROM STDIN", rows: ServerCopyRows.encode(long))
        let characters = long.reduce(0) { total, row in if case .text(let text) = row[1] { total + text.count } else { total } }
        #expect(try connection.execute("SELECT count(*), sum(length(t)), max(t) FROM long")
                == [[.integer(3000), .integer(Int64(characters)), .text(String(repeating: "é", count: 400) + "999")]])
        // A NUL byte is refused before anything is sent; a failing COPY is a typed error and
        // leaves the connection usable.
        #expect(throws: PostgresError.self) { try connection.copy("COPY copied FROM STDIN", rows: Array("1\ta\u{0}b\t1\t1\t\\N\n".utf8)) }
        #expect(throws: PostgresError.self) { try connection.copy("COPY copied FROM STDIN", rows: Array("x\ty\n".utf8)) }
        #expect(throws: PostgresError.self) { try connection.copy("COPY missing FROM STDIN", rows: []) }
        #expect(try connection.execute("SELECT count(*) FROM copied") == [[.integer(Int64(copiedRows.count))]])
    }

    /// A statement sent without waiting (the `ROLLBACK` ending a snapshot) runs at once, not
    /// when the connection is next used: another connection sees its effect meanwhile. Its
    /// answer, even a failure, is read by the next use, whichever it is.
    /// A server older than PostgreSQL 13 (whose SQL lacks `FETCH FIRST ... WITH TIES`, which
    /// related lists are read with) is refused at connect, naming its version; 13 and later
    /// are served, as the test cluster is.
    @Test func serversOlderThanPostgreSQL13AreRefusedNamingTheirVersion() throws {
        #expect(PostgresConnection.versionProblem(serverVersion: 120_015) == "the server runs PostgreSQL 12.15; SchemaStore needs PostgreSQL 13 or later")
        #expect(PostgresConnection.versionProblem(serverVersion: 90_624)?.hasPrefix("the server runs PostgreSQL 9.6.24;") == true)
        #expect(PostgresConnection.versionProblem(serverVersion: 129_999) != nil)
        #expect(PostgresConnection.versionProblem(serverVersion: 130_000) == nil)
        #expect(PostgresConnection.versionProblem(serverVersion: 150_018) == nil)
        guard let cluster = try Self.cluster() else { return }
        defer { cluster.stop() }
        let connection = try PostgresConnection(cluster.configuration())
        defer { connection.close() }
        guard case .integer(let version) = try connection.execute("SELECT current_setting('server_version_num')::int")[0][0] else {
            Issue.record("no server version")
            return
        }
        #expect(version >= Int64(PostgresConnection.oldestServerVersion))
    }

    @Test func aStatementSentWithoutWaitingRunsAtOnceAndIsAnsweredByTheNextUse() throws {
        guard let cluster = try Self.cluster() else { return }
        defer { cluster.stop() }
        let connection = try PostgresConnection(cluster.configuration())
        let other = try PostgresConnection(cluster.configuration())
        try connection.execute("CREATE TABLE held (n bigint)")
        try connection.executeBatch([("BEGIN", []), ("LOCK TABLE held IN ACCESS EXCLUSIVE MODE", [])])
        connection.sendWithoutWaiting("ROLLBACK")
        // The lock goes with the transaction: the other connection takes it while this one is idle.
        try other.execute("SET lock_timeout = 5000")
        try other.executeBatch([("BEGIN", []), ("LOCK TABLE held IN ACCESS EXCLUSIVE MODE", []), ("ROLLBACK", [])])
        // Each kind of next use reads the answer first.
        connection.sendWithoutWaiting("SELECT 1 / 0")
        #expect(try connection.execute("SELECT 1") == [[.integer(1)]])
        connection.sendWithoutWaiting("INSERT INTO held VALUES (1)")
        #expect(try connection.executeEach([("SELECT count(*) FROM held", []), ("SELECT 2", [])]) == [[[.integer(1)]], [[.integer(2)]]])
        // A batch goes behind it without waiting, and a failure there does not abort it.
        connection.sendWithoutWaiting("SELECT 1 / 0")
        #expect(try connection.executeEach([("SELECT 3", []), ("SELECT 4", [])]) == [[[.integer(3)]], [[.integer(4)]]])
        connection.sendWithoutWaiting("SELECT 5")
        connection.sendWithoutWaiting("SELECT 6")
        #expect(try connection.executeBatch([("SELECT 7", [])]) == [[.integer(7)]])
        connection.sendWithoutWaiting("INSERT INTO held VALUES (2)")
        try connection.copy("COPY held FROM STDIN", rows: Array("3\n".utf8))
        connection.sendWithoutWaiting("SELECT 1")
        #expect(try connection.waitForNotifications(timeout: 0).isEmpty)
        #expect(try connection.execute("SELECT sum(n)::bigint FROM held") == [[.integer(6)]])
        // Ending a snapshot this way leaves no transaction open.
        #expect(try other.execute("SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'") == [[.integer(0)]])
    }

    /// Asking what notifications came without reading the socket does not wait for a
    /// statement sent without waiting (a read transaction's `COMMIT`), and loses none: one
    /// sent meanwhile comes with the connection's next use.
    @Test func notificationsReceivedDoNotWaitForAStatementSentWithoutWaiting() throws {
        guard let cluster = try Self.cluster() else { return }
        defer { cluster.stop() }
        let connection = try PostgresConnection(cluster.configuration())
        let other = try PostgresConnection(cluster.configuration())
        try connection.listen("heard")
        try other.execute("NOTIFY heard, '1'")
        #expect(try connection.execute("SELECT 1") == [[.integer(1)]])
        connection.sendWithoutWaiting("SELECT pg_sleep(2)")
        let start = Date()
        #expect(try connection.receivedNotifications(readingSocket: false) == ["1"])
        #expect(Date().timeIntervalSince(start) < 1, "waited for the statement's answer")
        try other.execute("NOTIFY heard, '2'")
        #expect(try connection.execute("SELECT 2") == [[.integer(2)]])
        #expect(Date().timeIntervalSince(start) >= 1.5, "the statement sent without waiting did not run first")
        var heard = try connection.receivedNotifications(readingSocket: false)
        if heard.isEmpty { heard = try connection.waitForNotifications(timeout: 5) }
        #expect(heard == ["2"])
    }

    /// Names whose order and equality only Swift's string comparison gets right: composed and
    /// decomposed accents are equal, case and accents order by scalar.
    static let names = ["Émile", "E\u{301}mile", "émile", "Emile", "zoé", "Zoe", "zoe\u{301}", "a", "B", "", "ß", "ss", "Ångström", "~"]

    @Test(arguments: 0..<3)
    func compiledFiltersAnswerAlikeInSQLitePostgreSQLAndSwift(seed: UInt64) throws {
        guard let cluster = try Self.cluster() else { return }
        defer { cluster.stop() }
        var random = SplitMix64(seed: seed &+ 101)
        var context = Context()
        for index in 0..<60 {
            let name = Self.names[Int.random(in: 0..<Self.names.count, using: &random)]
            // Distinct usernames (a unique index), some nil. Composed (NFC): Swift orders a
            // decomposed string against a longer composed one inconsistently ("zoé4" and
            // "zoe\u{301}" are neither <, > nor ==), so only names test decomposed forms.
            let username = index % 3 == 0 ? nil : "\(Self.names[index % Self.names.count].precomposedStringWithCanonicalMapping)\(index)"
            try User(id: "u\(index)", name: name, username: username, age: Int.random(in: 0..<5, using: &random),
                     status: [.active, .away, .offline][index % 3]).save(to: &context)
        }
        let layout = StoreLayout(ChatModelsSchema.self)
        let user = try #require(layout.entityByName["User"])
        let keys = user.rowKeys(in: context)
        let rows = try keys.map { try #require(try user.rowValues($0, in: context)) }

        // The same rows, in the same storage order, in SQLite and PostgreSQL.
        let sqlite = try SQLiteDatabase(path: ":memory:")
        try SQLiteBackend.createTable(user, in: sqlite)
        let names = user.columns.map { SQLiteDialect().quote($0.name) }
        let insert = try sqlite.statement("INSERT INTO \"User\" (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))")
        for row in rows { try insert.run(row) }
        let postgres = try PostgresConnection(cluster.configuration())
        let types: [StoredType: String] = [.integer: "bigint", .real: "double precision", .text: "text", .blob: "bytea"]
        let columns = user.columns.map { "\(SQLiteDialect().quote($0.name)) \(types[$0.type]!)" }
        try postgres.execute("CREATE TABLE \"User\" (\(columns.joined(separator: ", ")), \"\(PostgreSQLDialect.storageOrder)\" bigint NOT NULL)")
        let placeholders = (1...(names.count + 1)).map { "$\($0)" }.joined(separator: ", ")
        for (order, row) in rows.enumerated() {
            try postgres.execute("INSERT INTO \"User\" (\(names.joined(separator: ", ")), \"\(PostgreSQLDialect.storageOrder)\") VALUES (\(placeholders))",
                                 row + [.integer(Int64(order))])
        }

        var compared = 0
        for _ in 0..<80 {
            let (name, query) = Self.randomQuery(&random, in: context)
            let expected = query.resolve().map(\.id)
            let predicate = try #require(query.filterPredicate)
            var results: [String: [String]] = [:]
            for dialect in [SQLiteDialect(), PostgreSQLDialect()] as [any SQLDialect] {
                let compiler = PredicateCompiler(entity: user, dialect: dialect)
                let compiled = compiler.compile(predicate.structure)
                guard compiled.isExact, let order = compiler.order(query.sortFields) else { continue }
                let select = SQLSelect(output: .columns([.column("id")]), table: "User", filter: compiled.filter,
                                       order: order + [SQLOrderTerm(expression: .storageOrder(), descending: false)])
                let sql = SQLRenderer.render(select, in: dialect)
                let ids: [StoredValue]
                if dialect is SQLiteDialect {
                    let statement = try sqlite.statement(sql.text)
                    try statement.bind(sql.bindings)
                    var found: [StoredValue] = []
                    while try statement.step() { found.append(statement.value(at: 0)) }
                    statement.reset()
                    ids = found
                } else {
                    ids = try postgres.execute(sql.text, sql.bindings).map { $0[0] }
                }
                results["\(type(of: dialect))"] = ids.map { if case .text(let id) = $0 { id } else { "?" } }
            }
            guard results.count == 2 else { continue }
            #expect(results["SQLiteDialect"] == expected, "SQLite: \(name)")
            #expect(results["PostgreSQLDialect"] == expected, "PostgreSQL: \(name)")
            compared += 1
        }
        #expect(compared > 40)
    }

    static func randomQuery(_ random: inout SplitMix64, in context: Context) -> (String, QueryList<User>) {
        let name = names[Int.random(in: 0..<names.count, using: &random)]
        let composed = name.precomposedStringWithCanonicalMapping
        let age = Int.random(in: 0..<5, using: &random)
        let predicate: EntityPredicate<User>
        let description: String
        // A username some user has (the index-th), or none; nil usernames are != every one.
        let index = Int.random(in: 0..<60, using: &random)
        let username = "\(names[index % names.count].precomposedStringWithCanonicalMapping)\(index)"
        switch Int.random(in: 0..<11, using: &random) {
        case 0: (predicate, description) = (\.name == name, "name == \(name)")
        case 1: (predicate, description) = (\.name < name || \.age == age, "name < \(name) || age == \(age)")
        case 2: (predicate, description) = (!(\.name >= name) && \.age != age, "!(name >= \(name)) && age != \(age)")
        case 3: (predicate, description) = (\.username == nil || \.username > composed, "username nil or > \(composed)")
        case 4: (predicate, description) = (\.username <= composed, "username <= \(composed)")
        case 5: (predicate, description) = (\.status == .away || \.status != .active && \.age >= age, "status")
        case 6: (predicate, description) = (\.name != name && \.age > age, "name != \(name) && age > \(age)")
        case 7: (predicate, description) = (\.username != username, "username != \(username)")
        case 8: (predicate, description) = (!(\.username == username) && \.age != age, "!(username == \(username)) && age != \(age)")
        case 9: (predicate, description) = (\.username == username || \.email == nil, "username == \(username) || email nil")
        default: (predicate, description) = (\.age <= age, "age <= \(age)")
        }
        var query = User.query(in: context).filter(predicate)
        switch Int.random(in: 0..<4, using: &random) {
        case 0: query = query.sorted(by: \.name)
        case 1: query = query.sorted(by: \.name.desc, \.age)
        case 2: query = query.sorted(by: \.username.desc)
        default: break
        }
        return (description, query)
    }
}
