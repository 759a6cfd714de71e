import SchemaRuntime

/// What lets a write statement go to the server as part of one statement with the writes
/// beside it (``PendingWrites/steps()``): PostgreSQL pays for each statement on its own
/// (its messages, a snapshot, the executor's start and finish), and a single write's
/// inserts into half a dozen tables cost about 8% less as one
/// `WITH w1 AS (INSERT ...), w2 AS (INSERT ...) INSERT ...` (Benchmarks/pgbench).
///
/// Only statements that touch different tables join: the parts of one statement share its
/// snapshot, so none sees what another wrote, and run in no set order. Whoever spells a
/// statement declares the tables it reads or writes, as its SQL spells them (quoted); a
/// statement that declares nothing (one whose answer is read, one that must see the writes
/// before it, any other) is never fused. Debug builds check each declaration against the
/// tables its SQL names.
struct StatementFusion: Sendable, Equatable {
    /// The tables the statement reads or writes, quoted as in its SQL, each once. An array:
    /// a statement names one or two, and a group of them a handful, where comparing names
    /// costs less than hashing them into sets (nearly half of fusing's instructions, which
    /// every write pays).
    let tables: [String]
    /// Whether it modifies rows (`INSERT`, `UPDATE`, `DELETE`), and so may run as a `WITH`
    /// part: PostgreSQL runs those whether or not the statement reads them. Any other
    /// (a `SELECT` of a function run for its effect) can only end a group, as its main statement.
    let modifies: Bool

    /// A statement modifying `table` (quoted), and reading no other.
    static func modifying(_ table: String) -> StatementFusion {
        StatementFusion(tables: [table], modifies: true)
    }

    /// A `SELECT` of no table, run for its effect (`set_config`).
    static let selectingNoTable = StatementFusion(tables: [], modifies: false)

    /// PostgreSQL binds at most 65,535 values in one statement.
    static let maximumParameters = 65_535

    /// `steps` with the runs of fusable statements from `start` on made one statement each.
    /// `fusions[i]` is the declaration of `steps[i]` (nil: never fused). Statements before
    /// `start` keep their places: the answers read by place are among them. `texts` keeps
    /// the fused texts made, by their parts' texts: a store sends the same few again and
    /// again, and spelling one anew (renumbering its parameters) took 3% of a single write's
    /// client time.
    static func fused(_ steps: [ServerBatchStep], _ fusions: [StatementFusion?], from start: Int,
                      texts: inout [[SQLTextKey]: String]) -> [ServerBatchStep] {
        var result = Array(steps[..<start])
        var group: [(sql: String, parameters: [StoredValue])] = []
        var groupTables: [String] = []
        var groupParameters = 0
        func endGroup() {
            if group.count == 1 { result.append(.statement(sql: group[0].sql, parameters: group[0].parameters)) }
            if group.count > 1 { result.append(fuse(group, texts: &texts)) }
            group.removeAll()
            groupTables.removeAll()
            groupParameters = 0
        }
        for index in start..<steps.count {
            guard let fusion = fusions[index], case .statement(let sql, let parameters) = steps[index] else {
                endGroup()
                result.append(steps[index])
                continue
            }
            if fusion.tables.contains(where: groupTables.contains) || groupParameters + parameters.count > maximumParameters { endGroup() }
            group.append((sql, parameters))
            groupTables += fusion.tables
            groupParameters += parameters.count
            if !fusion.modifies { endGroup() }
        }
        endGroup()
        return result
    }

    /// The most fused texts kept (``fused(_:_:from:texts:)``), forgotten together past it.
    static let keptTexts = 512

    /// `parts` as one statement: each but the last a `WITH` part, the last its main
    /// statement; each part's parameters numbered after those of the parts before it.
    static func fuse(_ parts: [(sql: String, parameters: [StoredValue])], texts: inout [[SQLTextKey]: String]) -> ServerBatchStep {
        let key = parts.map { SQLTextKey($0.sql) }
        let sql = texts[key] ?? {
            var sql = "WITH "
            var offset = 0
            for (index, part) in parts.dropLast().enumerated() {
                if index > 0 { sql += ", " }
                sql += "w\(index + 1) AS (\(renumbered(part.sql, by: offset)))"
                offset += part.parameters.count
            }
            sql += " " + renumbered(parts[parts.count - 1].sql, by: offset)
            if texts.count >= keptTexts { texts.removeAll() }
            texts[key] = sql
            return sql
        }()
        var parameters: [StoredValue] = []
        parameters.reserveCapacity(parts.reduce(0) { $0 + $1.parameters.count })
        for part in parts { parameters += part.parameters }
        return .statement(sql: sql, parameters: parameters)
    }

    /// `sql` with each parameter `$n` made `$(n + offset)`. Quoted identifiers and string
    /// literals are copied as they are (a doubled quote inside one closes and reopens it,
    /// which comes to the same); the statements spelled here hold no other kind of quote.
    static func renumbered(_ sql: String, by offset: Int) -> String {
        guard offset > 0 else { return sql }
        let bytes = Array(sql.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count + 16)
        var quote: UInt8?
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if let open = quote {
                if byte == open { quote = nil }
                result.append(byte)
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
                result.append(byte)
            } else if byte == UInt8(ascii: "$"), index < bytes.count, isDigit(bytes[index]) {
                var number = 0
                while index < bytes.count, isDigit(bytes[index]) {
                    number = number * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                    index += 1
                }
                result.append(byte)
                result += String(number + offset).utf8
            } else {
                result.append(byte)
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    /// The quoted tables `sql` names after `INTO`, `FROM`, `UPDATE`, `USING` or `JOIN`: what
    /// a declaration must hold (checked in debug builds; subqueries of `VALUES` or
    /// `unnest(...)` name none).
    static func tablesNamed(in sql: String) -> Set<String> {
        var tables: Set<String> = []
        for keyword in ["INTO ", "FROM ", "UPDATE ", "USING ", "JOIN "] {
            var rest = sql[...]
            while let range = rest.range(of: keyword + "\"") {
                var name = "\""
                var cursor = range.upperBound
                while cursor < rest.endIndex {
                    let character = rest[cursor]
                    name.append(character)
                    cursor = rest.index(after: cursor)
                    if character == "\"" {
                        // A doubled quote is one inside the name.
                        if cursor < rest.endIndex, rest[cursor] == "\"" { name.append("\""); cursor = rest.index(after: cursor); continue }
                        break
                    }
                }
                tables.insert(name)
                rest = rest[cursor...]
            }
        }
        return tables
    }

    /// Whether this declaration names exactly the tables `sql` does (``tablesNamed(in:)``).
    func declares(_ sql: String) -> Bool {
        let declared = Set(tables)
        return declared.count == tables.count && declared == Self.tablesNamed(in: sql)
    }
}
