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
        for row in try execute(sql.text, sql.bindings) { try body(row) }
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
