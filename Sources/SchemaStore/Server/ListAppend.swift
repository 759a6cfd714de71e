/// Links appended at the end of one to-many link table's lists, found by the insert itself
/// (no round trip to read the last position): rows `(owner, rank, target)` of one
/// statement, each list's ranks counted from its last link before the statement
/// (``PendingWrites/appendColumnRow(head:types:tail:_:key:copy:fusion:)``). Spelled once
/// per table: every write that appends to a list sends it.
struct ListAppend: Sendable {
    /// `INSERT INTO "t" (owner, position, target) SELECT ... FROM `, before the rows.
    let head: String
    /// After the rows: their names and order.
    let tail: String
    /// The owner's, the rank's and the target's PostgreSQL types.
    let types: [String]
    /// Its table, for sending it as part of one statement with other writes.
    let fusion: StatementFusion

    /// `table` unquoted; `owner` and `target` the PostgreSQL types of their ids.
    init(table: String, owner: String, target: String) {
        let quotedTable = quoted(table)
        head = """
            INSERT INTO \(quotedTable) (owner, position, target) \
            SELECT added.owner, coalesce((SELECT max(position) FROM \(quotedTable) WHERE owner = added.owner), -1) + 1 + added.rank, added.target
            """ + " FROM "
        tail = " AS added(owner, rank, target) ORDER BY added.owner, added.rank"
        types = [owner, "bigint", target]
        fusion = .modifying(quotedTable)
    }
}
