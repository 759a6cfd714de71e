import Foundation
import SchemaRuntime
import SchemaStorePostgres

/// Messages saved into chat 0 by hand, the way a careful libpq user would: each
/// transaction's statements in one pipeline (one round trip), into the tables
/// ``PostgresBenchmark/handWritten(_:_:indexed:fullText:copy:)`` made.
///
/// `observed`: with the steps a store takes so that other processes see each commit, as a
/// hand-written service would spell them: the writers' lock (commits in one order), the
/// commit's entries in a log table, and a notification, which another connection listens
/// for. (Beside them a store checks the schema and sets its plans: its own choices, not
/// counted here.)
final class HandWrittenWrites {
    private let connection: PostgresConnection
    private let listener: PostgresConnection?

    init(_ configuration: PostgresConnection.Configuration, observed: Bool) throws {
        connection = try PostgresConnection(configuration)
        listener = observed ? try PostgresConnection(configuration) : nil
        if let listener {
            try connection.execute("CREATE TABLE IF NOT EXISTS log (commit bigint NOT NULL, kind text NOT NULL, name text NOT NULL, id text NOT NULL, change text)")
            try connection.execute("CREATE INDEX IF NOT EXISTS log_commit ON log (commit)")
            try listener.listen("commits")
        }
    }

    func close() {
        connection.close()
        listener?.close()
    }

    /// `count` writes, each a new message (numbered from `firstIndex`); the median (ms).
    func medianOf(_ count: Int, firstIndex: Int) throws -> Double {
        var writes: [Double] = []
        for index in firstIndex..<(firstIndex + count) {
            let number = (listener != nil ? 300_000_000 : 100_000_000) + index
            let id = StoredValue.integer(Int64(number))
            let commit = StoredValue.integer(Int64(index + 1))
            let observing: [(sql: String, parameters: [StoredValue])] = [
                ("INSERT INTO log (commit, kind, name, id, change) VALUES ($1, 'row', 'Chat', 'i:0', NULL), ($1, 'row', 'Message', $2, NULL), "
                    + "($1, 'link', 'Chat.messages', 'i:0', NULL), ($1, 'link', 'Message.author', $2, NULL)", [commit, .text("i:\(number)")]),
                ("SELECT pg_notify('commits', $1)", [.text("\(index + 1)")]),
            ]
            writes.append(try OnDemandBenchmark.milliseconds {
                try connection.executeBatch([("BEGIN", [])] + (listener != nil ? [("SELECT pg_advisory_xact_lock(1)", [])] : []) + [
                    ("INSERT INTO \"Message\" (id, text, timestamp) VALUES ($1, $2, $3)", [id, .text("new"), .integer(Int64(index))]),
                    ("INSERT INTO \"Message.author\" (owner, target) VALUES ($1, $2)", [id, .integer(0)]),
                    ("INSERT INTO \"Chat.messages\" (owner, position, target) VALUES ($1, (SELECT coalesce(max(position) + 1, 0) FROM \"Chat.messages\" WHERE owner = $1), $2)",
                     [.integer(0), id]),
                ] + (listener != nil ? observing : []) + [("COMMIT", [])])
            })
        }
        return OnDemandBenchmark.median(writes)
    }
}
