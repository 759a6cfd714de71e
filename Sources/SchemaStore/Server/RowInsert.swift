/// A plain insert into some columns of a table (no conflict clause), sent for many rows at
/// once (``PostgreSQLBackend/insertRow(_:_:)``): as one statement whose rows come as one
/// array per column, or, past ``PendingWrites/copyRows`` rows, streamed with `COPY`, which
/// the server reads faster still (a write's postings: 1.7 µs a row as arrays, 1.0 by COPY).
struct RowInsert: Sendable {
    /// `INSERT INTO "t" ("a", "b") SELECT * FROM `, before `unnest(...)`.
    let head: String
    /// `COPY "t" ("a", "b") FROM STDIN`.
    let copy: String
    /// Each column's PostgreSQL type.
    let types: [String]
    /// Its table, for sending it as part of one statement with other writes.
    let fusion: StatementFusion

    /// `table` and `columns` unquoted; `types` PostgreSQL's, one per column.
    init(table: String, columns: [String], types: [String]) {
        let target = "\(quoted(table)) (\(columns.map(quoted).joined(separator: ", ")))"
        head = "INSERT INTO \(target) SELECT * FROM "
        copy = "COPY \(target) FROM STDIN"
        self.types = types
        fusion = .modifying(quoted(table))
    }
}
