import SchemaRuntime

/// The writes of a PostgreSQL transaction not sent yet. A write's answer is never read, so
/// writes wait here and go to the server together (``statements()``): rows inserted into one
/// table one after another become one multi-row `INSERT` (up to ``rowsPerStatement``), and
/// the statements go in one pipeline. Order is kept: only consecutive rows of one statement
/// shape merge, and a key already in the merged rows starts a new statement (an upsert may
/// not touch one row twice).
struct PendingWrites {
    /// `INSERT INTO table (columns)` rows with the same head and tail, merged.
    private struct Rows {
        let head: String
        let tail: String
        /// A list of single values (`head ($1, $2, ...)`, a `DELETE ... IN`) rather than rows.
        var isList = false
        /// Per column, what follows its placeholder (a cast, where PostgreSQL cannot infer the type).
        let casts: [String]
        var rows: [[StoredValue]]
        var keys: Set<StoredValue>
    }

    private enum Write {
        case statement(sql: String, parameters: [StoredValue])
        case rows(Rows)
    }

    /// PostgreSQL binds at most 65,535 values in one statement; 1,000 rows of a few columns stay far below.
    static let rowsPerStatement = 1000

    private var writes: [Write] = []
    /// The rows being merged, kept apart from `writes` so that adding one is O(1) (an
    /// element of `writes` would be copied by each change).
    private var open: Rows?
    private(set) var count = 0

    var isEmpty: Bool { writes.isEmpty && open == nil }

    mutating func append(_ sql: String, _ parameters: [StoredValue]) {
        close()
        writes.append(.statement(sql: sql, parameters: parameters))
        count += 1
    }

    private mutating func close() {
        if let rows = open { writes.append(.rows(rows)) }
        open = nil
    }

    /// A row of `head VALUES (...) tail` (`INSERT INTO "User" ("id", "name")`, `ON CONFLICT ...`),
    /// merged with the rows just before it when they share head and tail; `key` is the
    /// conflict key, nil when there is none.
    mutating func appendRow(head: String, tail: String, casts: [String] = [], _ values: [StoredValue], key: StoredValue?) {
        count += 1
        if let rows = open, !rows.isList, rows.head == head, rows.tail == tail, rows.rows.count < Self.rowsPerStatement,
           key.map({ !rows.keys.contains($0) }) ?? true {
            open!.rows.append(values)
            if let key { open!.keys.insert(key) }
            return
        }
        close()
        open = Rows(head: head, tail: tail, casts: casts, rows: [values], keys: key.map { [$0] } ?? [])
    }

    /// A value of `head (...) tail` (`DELETE FROM "Chat.messages" WHERE owner IN`), merged
    /// with the values just before it of the same head and tail.
    mutating func appendListValue(head: String, tail: String = "", _ value: StoredValue) {
        count += 1
        if let rows = open, rows.isList, rows.head == head, rows.tail == tail, rows.rows.count < Self.rowsPerStatement {
            open!.rows.append([value])
            return
        }
        close()
        open = Rows(head: head, tail: tail, isList: true, casts: [], rows: [[value]], keys: [])
    }

    mutating func removeAll() {
        writes.removeAll(keepingCapacity: true)
        open = nil
        count = 0
    }

    /// The statements to send, in order.
    func statements() -> [(sql: String, parameters: [StoredValue])] {
        (writes + (open.map { [Write.rows($0)] } ?? [])).map { write in
            switch write {
            case .statement(let sql, let parameters):
                return (sql, parameters)
            case .rows(let rows) where rows.isList:
                let values = rows.rows.indices.map { "$\($0 + 1)" }.joined(separator: ", ")
                return ("\(rows.head) (\(values))\(rows.tail)", rows.rows.map { $0[0] })
            case .rows(let rows):
                let width = rows.rows[0].count
                let values = rows.rows.indices.map { row in
                    "(" + (1...width).map { "$\(row * width + $0)" + (rows.casts.count >= $0 ? rows.casts[$0 - 1] : "") }.joined(separator: ", ") + ")"
                }
                return ("\(rows.head) VALUES \(values.joined(separator: ", "))\(rows.tail)", rows.rows.flatMap { $0 })
            }
        }
    }
}
