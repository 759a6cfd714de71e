import ChatModels
import ChatWorkloads
import Foundation
@_spi(SchemaStore) import SchemaRuntime
@_spi(SchemaStoreTesting) @testable import SchemaStore
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// Writes big enough to go to the server in several batches, each sent from another thread
/// while the writer builds the next (`SentBatch`): what commits is the whole write, in
/// order; a batch that fails in flight fails the write and changes nothing; and values
/// PostgreSQL cannot hold are refused, never cut.
@Suite(.serialized) struct PostgresBigWriteTests {
    /// `count` chats of 100 messages by 10 users; each message's text from `text`.
    static func chats(_ count: Int, first: Int = 0, text: (Int) -> String) -> [Chat] {
        (first..<first + count).map { chat in
            Chat(id: "c\(chat)", title: "chat \(chat)", users: .ids((0..<3).map { "u\((chat + $0) % 10)" }),
                 messages: .relation((0..<100).map { index in
                     let number = chat * 100 + index
                     return Message(id: "m\(number)", text: text(number), timestamp: number, author: .id("u\(number % 10)"))
                 }))
        }
    }

    static let users = (0..<10).map { User(id: "u\($0)", name: "user \($0)") }

    /// The full-text statistics of the messages' texts in `context`, counted here, for the
    /// tokens of `query`.
    static func statistics(of context: Context, matching query: String) -> FullTextStatistics {
        var (documents, length) = (0, 0)
        let tokens = Set(TextTokenizer.tokens(query))
        var frequency = Dictionary(uniqueKeysWithValues: tokens.map { ($0, 0) })
        for message in Message.query(in: context).resolve() {
            let (terms, count) = FullTextStatistics.terms(of: message.text)
            documents += 1
            length += count
            for (term, _) in terms where tokens.contains(term) { frequency[term]! += 1 }
        }
        return FullTextStatistics(documents: documents, totalLength: length, documentFrequency: frequency)
    }

    /// Over 100,000 rows, links and postings in one write, then a write replacing half of
    /// the lists and texts: a SQLite file fed the same writes holds the same graph, and so
    /// do the database opened again and another store that follows the commit log (whose
    /// entries of such writes go in sets, `CommitLog.setThreshold`).
    @Test func aWriteSentInSeveralBatchesHoldsWhatASQLiteStoreHolds() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("batches")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-batches-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlite = try Store(.file(folder.appendingPathComponent("chat.store")), schema: ChatModelsSchema.self)
        var postgres: Store? = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        let follower = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        let writes: [@Sendable (inout Context) throws -> Void] = [
            { context in
                try Self.users.save(to: &context)
                try Self.chats(120) { "message \($0) of \($0 % 7) words \($0 % 13)" }.save(to: &context)
            },
            { context in
                // Every other chat's list written again, reversed, half of its texts changed.
                for chat in stride(from: 0, to: 120, by: 2) {
                    try Chat(id: "c\(chat)", messages: .relation((0..<100).map { index in
                        let number = chat * 100 + 99 - index
                        return Message(id: "m\(number)", text: index < 50 ? "again \(index)" : "message \(number)", timestamp: index, author: .id("u1"))
                    })).save(to: &context)
                }
            },
        ]
        for write in writes {
            try sqlite.write(write)
            try postgres!.write(write)
            #expect(try ChatGraphText.of(postgres!.context) == ChatGraphText.of(sqlite.context))
            // The postings of so many messages go by `COPY`, spelled straight from the terms:
            // each word's documents and the totals are those of the texts written.
            let reader = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
            let query = "message of words again 7 12 1299"
            #expect(try reader.fullTextStatistics(of: Message.self, matching: query) == Self.statistics(of: sqlite.context, matching: query))
            try follower.refresh()
            #expect(try ChatGraphText.of(follower.context) == ChatGraphText.of(sqlite.context))
        }
        #expect(follower.catchUps.reloaded == 0 && follower.catchUps.followed == writes.count, "\(follower.catchUps)")
        postgres = nil
        let reopened = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        #expect(try ChatGraphText.of(reopened.context) == ChatGraphText.of(sqlite.context))
        let onDemand = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        let found = try onDemand.read { Message.query(in: $0).filter(.string(\.text, matches: "again 7")).resolve().map(\.id) }
        #expect(Set(found) == Set(stride(from: 0, to: 120, by: 2).map { "m\($0 * 100 + 92)" }))
        // Texts written again lost their old words: only the chats not written again keep them.
        let kept = try onDemand.read { Message.query(in: $0).filter(.string(\.text, matches: "words")).resolve().count }
        #expect(kept == 60 * 100)
    }

    /// A big write into empty tables builds their keys and indexes after the rows
    /// (`IndexDeferral`): after the write every index is there again, made anew, with its
    /// definition and comment (a writer opening again finds nothing to change). While
    /// another transaction reads a table (here the postings), its indexes cannot be
    /// dropped at once: the write does not wait for that reader, keeps them, and commits the
    /// same rows. Into tables that have rows, nothing is dropped.
    @Test(arguments: [false, true]) func aBigWriteIntoEmptyTablesBuildsTheirIndexesAfterTheRows(whileRead: Bool) throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("deferred\(whileRead)")
        var store: Store? = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        let connection = try PostgresConnection(configuration)
        defer { connection.close() }
        // Every index of the store's tables: its object id (an index made again is a new
        // object), table, definition and comment, by name.
        func indexes() throws -> [String: [StoredValue]] {
            var found: [String: [StoredValue]] = [:]
            for row in try connection.execute("""
                SELECT c.relname, c.oid::bigint, t.relname, pg_get_indexdef(c.oid), obj_description(c.oid, 'pg_class')                 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid                 JOIN pg_namespace n ON n.oid = t.relnamespace WHERE n.nspname = current_schema()
                """) {
                if case .text(let name) = row[0] { found[name] = Array(row.dropFirst()) }
            }
            return found
        }
        let rows = try connection.execute("SELECT tablename FROM pg_tables WHERE tablename LIKE 'Message:fts:%:terms' OR tablename LIKE 'Message:fts:%:documents' ORDER BY 1")
        guard rows.count == 2, case .text(let documents) = rows[0][0], case .text(let postings) = rows[1][0] else {
            Issue.record("no postings and documents tables for Message: \(rows)")
            return
        }
        let before = try indexes()
        let reader = try PostgresConnection(configuration)
        defer { reader.close() }
        if whileRead {
            try reader.execute("BEGIN")
            _ = try reader.execute("SELECT count(*) FROM \(quoted(postings))")
        }
        // On another thread, so that a write waiting for the reader would show as one not done.
        let done = DispatchSemaphore(value: 0)
        let failures = PostgresStoreTests.Reported()
        Thread.detachNewThread { [store] in
            do {
                try store!.write { context in
                    try Self.users.save(to: &context)
                    // Enough rows that each table's first COPY lets its indexes wait.
                    try Self.chats(60) { "message \($0) of \($0 % 7) words \($0 % 13)" }.save(to: &context)
                }
            } catch {
                failures.add(error)
            }
            done.signal()
        }
        let finished = done.wait(timeout: .now() + 60) == .success
        #expect(finished, "the write waited for the reader")
        if whileRead { try reader.execute("COMMIT") }
        if !finished { done.wait() }
        #expect(failures.count == 0)
        let after = try indexes()
        #expect(Set(after.keys) == Set(before.keys))
        for (name, index) in after {
            // Same table, definition and comment; a new object where the table was filled.
            #expect(Array(index.dropFirst()) == before[name].map { Array($0.dropFirst()) }, "\(name)")
            let table = if case .text(let table) = index[1] { table } else { "" }
            let filled = ["Message", "Message.author", "Chat.messages", documents, postings].contains(table) && !(whileRead && table == postings)
            #expect((index[0] != before[name]?[0]) == filled, "\(name) of \(table)")
        }
        let onDemand = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        #expect(try onDemand.fullTextStatistics(of: Message.self, matching: "message words 3 12")
                == Self.statistics(of: store!.context, matching: "message words 3 12"))
        // A writer opening again (it makes the indexes the schema wants) changes nothing.
        let graph = try ChatGraphText.of(store!.context)
        store = nil
        store = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        #expect(try indexes() == after)
        #expect(try ChatGraphText.of(store!.context) == graph)
        // A second big write (as many postings) finds rows there: nothing is made again.
        try store!.write { context in try Self.chats(60, first: 60) { "again \($0) of \($0 % 7) words \($0 % 13)" }.save(to: &context) }
        #expect(try indexes() == after)
        #expect(try onDemand.fullTextStatistics(of: Message.self, matching: "again message 3")
                == Self.statistics(of: store!.context, matching: "again message 3"))
    }

    /// A key another table's foreign key depends on cannot be dropped: the big write keeps
    /// it (and the table's other indexes, dropped in the same block) and commits.
    @Test func aKeyOthersDependOnStaysAndTheBigWriteCommits() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("referenced")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        let connection = try PostgresConnection(configuration)
        defer { connection.close() }
        // The service's own table, beside the store's.
        try connection.execute("CREATE TABLE pins (message text REFERENCES \"Message\" (id))")
        let keyQuery = "SELECT oid::bigint FROM pg_constraint WHERE conrelid = '\"Message\"'::regclass AND contype = 'p'"
        let key = try connection.execute(keyQuery)
        try store.write { context in
            try Self.users.save(to: &context)
            try Self.chats(60) { "message \($0)" }.save(to: &context)
        }
        #expect(try connection.execute(keyQuery) == key && !key.isEmpty)
        #expect(try connection.execute("SELECT count(*) FROM \"Message\"") == [[.integer(6_000)]])
        try connection.execute("INSERT INTO pins VALUES ('m17')")
    }

    /// A database whose commit log was made before sets of entries: a reader opens on it, a
    /// writer's open adds them, and the reader follows a commit written in sets.
    @Test func aLogMadeBeforeSetsIsReadAndThenGainsThem() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("oldlog")
        var writer: Store? = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        try writer!.write { context in try Self.users.save(to: &context) }
        writer = nil
        // The log as versions before sets made it.
        let connection = try PostgresConnection(configuration)
        defer { connection.close() }
        try connection.execute("ALTER TABLE \"schemagen:commits\" DROP COLUMN ids, DROP COLUMN changes, ALTER COLUMN id SET NOT NULL")
        let reader = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(readOnly: true))
        try reader.refresh()
        #expect(reader.context.count(of: User.self) == 10)
        writer = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        try writer!.write { context in try Self.chats(20) { "message \($0)" }.save(to: &context) }
        try reader.refresh()
        #expect(try ChatGraphText.of(reader.context) == ChatGraphText.of(writer!.context))
        #expect(reader.catchUps.reloaded == 0 && reader.catchUps.followed == 1, "\(reader.catchUps)")
        let sets = try connection.execute("SELECT count(*) FROM \"schemagen:commits\" WHERE ids IS NOT NULL")
        #expect(sets.first?.first != .integer(0))
    }

    /// A server failure in the first of several batches (a check the database was given
    /// behind the store's back), found while later batches are being built: the write
    /// throws, the database and the store's graph are as before, and the next write commits.
    @Test func aBatchThatFailsInFlightFailsTheWriteAndChangesNothing() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("failing")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        try store.write { context in try Self.users.save(to: &context) }
        let connection = try PostgresConnection(configuration)
        defer { connection.close() }
        try connection.execute("ALTER TABLE \"Message\" ADD CONSTRAINT refused CHECK (text <> 'refused')")
        let before = try ChatGraphText.of(store.context)
        #expect(throws: (any Error).self) {
            try store.write { context in
                try Self.chats(120) { $0 == 5 ? "refused" : "message \($0)" }.save(to: &context)
            }
        }
        #expect(try ChatGraphText.of(store.context) == before)
        #expect(try connection.execute("SELECT count(*) FROM \"Message\"").first?.first == .integer(0))
        #expect(try Store(.postgres(configuration), schema: ChatModelsSchema.self).context.count(of: Message.self) == 0)
        try store.write { context in try Self.chats(1) { "message \($0)" }.save(to: &context) }
        #expect(store.context.count(of: Message.self) == 100)
    }

    /// Text holding a NUL character (U+0000), which PostgreSQL's text cannot hold (and
    /// libpq would cut at), in a small write and in a batch of a big one: a typed error
    /// saying so, and nothing written.
    @Test func textWithANulCharacterIsRefusedNotCut() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("nul")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        for write: @Sendable (inout Context) throws -> Void in [
            { try User(id: "u1", name: "before\u{0}after").save(to: &$0) },
            { try User(id: "u\u{0}1", name: "id").save(to: &$0) },
            { context in
                try Self.users.save(to: &context)
                try Self.chats(120) { $0 == 11_000 ? "a\u{0}b" : "message \($0)" }.save(to: &context)
            },
        ] {
            do {
                try store.write(write)
                Issue.record("a text with a NUL character was written")
            } catch {
                #expect("\(error)".contains("NUL"), "\(error)")
            }
            #expect(store.context.count(of: User.self) == 0)
        }
        let reopened = try Store(.postgres(configuration), schema: ChatModelsSchema.self)
        #expect(reopened.context.count(of: User.self) == 0 && reopened.context.count(of: Message.self) == 0)
    }
}
