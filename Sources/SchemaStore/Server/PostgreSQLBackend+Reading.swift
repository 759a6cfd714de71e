import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// Reads for a PostgreSQL store answering queries through SQL (``OnDemandSnapshot``): a
/// `REPEATABLE READ` transaction pins one committed state, and compiled queries run in
/// PostgreSQL's dialect.
extension PostgreSQLBackend: SnapshotConnection {
    var dialect: any SQLDialect { PostgreSQLDialect() }
    var checksAssumedReads: Bool { true }

    var joinsToOneFollows: Bool { true }

    func rows(_ select: SQLSelect, _ body: ([StoredValue]) throws -> Void) throws {
        let sql = SQLRenderer.render(select, in: dialect)
        for row in try execute(sql.text, sql.bindings, planningGenerically: Self.plansGenerically(select)) { try body(row) }
    }

    /// Whether `select` runs on a generic plan that scans no table in full where an index
    /// serves (``planGenerically``): a list read in steps (``RelatedListRead``,
    /// ``FilteredListRead``), whose every part is fenced into the plan it must have, so that
    /// planning it for its values gains nothing. Left to choose, PostgreSQL planned a
    /// related list anew at every read (0.58 ms of its 0.70, `postgres-load on-demand`): its
    /// generic plan looked dearer. And the rows holding a value, read on their own, must be
    /// read through the value's index, which a plan for a common value would not.
    static func plansGenerically(_ select: SQLSelect) -> Bool {
        switch select.rows {
        case .joinedOrFirst, .holdingOrFirst, .holding: true
        case .table, .first, .eachJoined: false
        }
    }

    /// `sql`'s rows; with `planningGenerically`, run between statements that set generic
    /// plans without full scans or compiling (``planGenerically``) and set them back, in
    /// the same round trip. Set as `SET LOCAL` does, so in a transaction (a snapshot's, a
    /// write's) only.
    private func execute(_ sql: String, _ parameters: [StoredValue], planningGenerically: Bool) throws -> [[StoredValue]] {
        guard planningGenerically else { return try execute(sql, parameters) }
        let back = (Self.planForValues + ["SET LOCAL jit TO DEFAULT"]).map { (sql: $0, parameters: [StoredValue]()) }
        return try execute(each: [(Self.planningGenerically, [])] + [(sql, parameters)] + back)[1]
    }

    func rows(ofEach selects: [SQLSelect]) throws -> [[[StoredValue]]] {
        try execute(each: selects.map { select in
            let sql = SQLRenderer.render(select, in: dialect)
            return (sql.text, sql.bindings)
        })
    }

    func queryPlan(_ select: SQLSelect) throws -> [String] {
        let sql = SQLRenderer.render(select, in: dialect)
        return try execute("EXPLAIN " + sql.text, sql.bindings).compactMap { row in
            if case .text(let line)? = row.first { return line }
            return nil
        }
    }

    func currentFingerprint() throws -> String? {
        // Read by the snapshot's first query (beginSnapshot).
        if let snapshotFingerprint { return snapshotFingerprint }
        return try recordedFingerprint()
    }

    func archiveIDs(name: String) throws -> [StoredValue] {
        try execute("SELECT id FROM \(Self.archiveTable) WHERE name = $1 ORDER BY \(Self.orderColumn)", [.text(name)]).map { row in
            guard let id = Self.decoded(row[0]) else {
                throw StoreError.corrupt(path: location, reason: "a record of schemagen:archive is unreadable")
            }
            return id
        }
    }
}
