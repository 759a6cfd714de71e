import DeterministicRandom
import SchemaRuntime
@testable import SchemaStore
import Testing

/// The PostgreSQL backend's write batching: rows merge into statements of column arrays, and
/// values into `IN` lists, only when nothing can tell (consecutive, same statement, a
/// conflict key at most once), so running the merged statements does what running each
/// row's statement in order does; many rows of a plain insert go by `COPY`.
@Suite struct PendingWritesTests {
    /// Random rows, list values and plain statements; each merged statement is expanded back
    /// into rows, which must be the appended sequence exactly, in order.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func mergedStatementsHoldEveryWriteInOrder(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var pending = PendingWrites()
        var appended: [String] = []
        for index in 0..<3000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0:
                pending.append("DELETE \(index)", [])
                appended.append("DELETE \(index)")
            case 1, 2:
                pending.appendListValue(head: "DELETE FROM C WHERE owner IN", .integer(Int64(index)))
                appended.append("C \(index)")
            case 3:
                // A run of a plain insert's rows, some long enough to go by COPY; text that
                // needs escaping in an array or a COPY, and NULL.
                for row in 0..<(Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 1...1200, using: &random) : 1) {
                    let text: StoredValue = (index + row) % 5 == 0 ? .null : .text("v\"\\ ,{}\t\n\r\\N\(index)")
                    pending.appendColumnRow(head: "INSERT INTO D (k, v) SELECT * FROM ", types: ["bigint", "text"], [.integer(Int64(index)), text], key: nil,
                                            copy: "COPY D (k, v) FROM STDIN")
                    appended.append("D \(index) \(text)")
                }
            default:
                let table = ["A", "B"][Int.random(in: 0..<2, using: &random)]
                let key = Int64.random(in: 0..<40, using: &random)
                pending.appendColumnRow(head: "INSERT INTO \(table) SELECT * FROM ", types: ["bigint", "bigint"], tail: " ON CONFLICT",
                                        [.integer(key), .integer(Int64(index))], key: .integer(key))
                appended.append("\(table) \(key) \(index)")
            }
        }
        #expect(pending.count == appended.count)
        var replayed: [String] = []
        var merged = 0, copies = 0
        for step in pending.steps() {
            let (sql, parameters): (String, [StoredValue])
            switch step {
            case .statement(let text, let values):
                (sql, parameters) = (text, values)
            case .copy(let text, let rows):
                #expect(text == "COPY D (k, v) FROM STDIN")
                let decoded = Self.copyRows(rows)
                #expect(decoded.count >= PendingWrites.copyRows && decoded.count <= PendingWrites.arrayRowsPerStatement)
                for row in decoded { replayed.append("D \(row[0]!) \(row[1].map { StoredValue.text($0) } ?? .null)") }
                copies += 1
                continue
            }
            if sql.hasPrefix("DELETE FROM C WHERE owner IN (") {
                #expect(sql == "DELETE FROM C WHERE owner IN (" + parameters.indices.map { "$\($0 + 1)" }.joined(separator: ", ") + ")")
                #expect(parameters.count <= PendingWrites.listValuesPerStatement)
                for case .integer(let index) in parameters { replayed.append("C \(index)") }
                if parameters.count > 1 { merged += 1 }
                continue
            }
            guard sql.hasPrefix("INSERT INTO ") else {
                replayed.append(sql)
                continue
            }
            let table = String(sql.dropFirst("INSERT INTO ".count).prefix(1))
            if sql.contains("(VALUES (") {
                // A row alone: its values bound as they are.
                let types = table == "D" ? "$1::bigint, $2::text" : "$1::bigint, $2::bigint"
                let head = table == "D" ? "INSERT INTO D (k, v) SELECT * FROM " : "INSERT INTO \(table) SELECT * FROM "
                #expect(sql == head + "(VALUES (\(types))) AS row" + (table == "D" ? "" : " ON CONFLICT"))
                guard parameters.count == 2, case .integer(let key) = parameters[0] else {
                    Issue.record("not one row's values: \(sql) \(parameters)")
                    continue
                }
                if table == "D" {
                    replayed.append("D \(key) \(parameters[1])")
                } else if case .integer(let index) = parameters[1] {
                    replayed.append("\(table) \(key) \(index)")
                }
                continue
            }
            guard parameters.count == 2, case .text(let first) = parameters[0], case .text(let second) = parameters[1] else {
                Issue.record("not two column arrays: \(sql)")
                continue
            }
            let columns = (Self.elements(first), Self.elements(second))
            #expect(columns.0.count == columns.1.count && columns.0.count <= PendingWrites.arrayRowsPerStatement)
            if columns.0.count > 1 { merged += 1 }
            if table == "D" {
                #expect(sql == "INSERT INTO D (k, v) SELECT * FROM unnest($1::bigint[], $2::text[])")
                for (key, text) in zip(columns.0, columns.1) { replayed.append("D \(key!) \(text.map { StoredValue.text($0) } ?? .null)") }
            } else {
                #expect(sql == "INSERT INTO \(table) SELECT * FROM unnest($1::bigint[], $2::bigint[]) ON CONFLICT")
                // An upsert may not touch one row twice.
                #expect(Set(columns.0).count == columns.0.count, "a key repeats in one statement")
                for (key, index) in zip(columns.0, columns.1) { replayed.append("\(table) \(key!) \(index!)") }
            }
        }
        #expect(replayed == appended)
        #expect(merged > 50, "rows were hardly merged")
        #expect(copies > 5, "long runs did not go by COPY")
    }

    /// The rows of a COPY's text as PostgreSQL reads them: escapes undone, `\N` as nil.
    static func copyRows(_ bytes: [UInt8]) -> [[String?]] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { line in
            line.split(separator: "\t", omittingEmptySubsequences: false).map { field -> String? in
                if field == #"\N"# { return nil }
                var text = "", characters = field[...]
                while let character = characters.popFirst() {
                    guard character == "\\" else {
                        text.append(character)
                        continue
                    }
                    switch characters.removeFirst() {
                    case "t": text.append("\t")
                    case "n": text.append("\n")
                    case "r": text.append("\r")
                    case let other: text.append(other)
                    }
                }
                return text
            }
        }
    }

    /// The elements of an array literal as PostgreSQL reads it: quoted ones unescaped,
    /// `NULL` as nil.
    static func elements(_ literal: String) -> [String?] {
        var elements: [String?] = []
        var characters = literal.dropFirst().dropLast()[...]
        while !characters.isEmpty {
            if characters.first == "\"" {
                characters.removeFirst()
                var element = ""
                while let character = characters.popFirst(), character != "\"" {
                    element.append(character == "\\" ? characters.removeFirst() : character)
                }
                elements.append(element)
            } else {
                let end = characters.firstIndex(of: ",") ?? characters.endIndex
                let bare = String(characters[..<end])
                elements.append(bare == "NULL" ? nil : bare)
                characters = characters[end...]
            }
            if characters.first == "," { characters.removeFirst() }
        }
        return elements
    }

    @Test func columnArraysAndListsAreNumberedFromOne() {
        var pending = PendingWrites()
        pending.appendColumnRow(head: "INSERT INTO t (a, b) SELECT * FROM ", types: ["text", "bigint"], tail: " X", [.text("x"), .integer(1)], key: nil)
        pending.appendColumnRow(head: "INSERT INTO t (a, b) SELECT * FROM ", types: ["text", "bigint"], tail: " X", [.text("y"), .null], key: nil)
        pending.appendListValue(head: "DELETE FROM t WHERE a IN", .text("x"))
        pending.appendListValue(head: "DELETE FROM t WHERE a IN", .text("z"))
        let statements = pending.steps().map { step -> (sql: String, parameters: [StoredValue]) in
            guard case .statement(let sql, let parameters) = step else { return ("COPY", []) }
            return (sql, parameters)
        }
        #expect(statements.map(\.sql) == ["INSERT INTO t (a, b) SELECT * FROM unnest($1::text[], $2::bigint[]) X", "DELETE FROM t WHERE a IN ($1, $2)"])
        #expect(statements.first?.parameters == [.text("{\"x\",\"y\"}"), .text("{1,NULL}")])
        pending.removeAll()
        #expect(pending.isEmpty && pending.steps().isEmpty)
    }

    /// Indexes that wait for a big write's end (``IndexDeferral``): random big and small
    /// `COPY`s (merged rows and spelled ones), statements declaring their tables, statements
    /// declaring none and reads, then `COMMIT`. In the steps sent: a table's indexes are
    /// dropped right before its first `COPY` in the write, and only when that `COPY` is big;
    /// while they wait, no statement that may touch the table runs (one naming it, or one
    /// declaring no tables); and they are made again before `COMMIT`.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func waitingIndexesAreMadeAgainBeforeAnythingCouldUseThem(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var pending = PendingWrites()
        pending.resetIndexDeferral()
        let tables = ["\"A\"", "\"B\"", "\"C\""]
        for index in 0..<60 {
            let table = tables.randomElement(using: &random)!
            switch Int.random(in: 0..<6, using: &random) {
            case 0:
                let rows = [600, IndexDeferral.rows - 1, IndexDeferral.rows, 6_000].randomElement(using: &random)!
                pending.appendCopy("COPY \(table) (k) FROM STDIN", rows: Array(String(repeating: "\(index)\n", count: rows).utf8), count: rows,
                                   fusion: .modifying(table))
            case 1:
                // Merged rows of a plain insert, as many as go in one `COPY` or fewer.
                let rows = [PendingWrites.copyRows, PendingWrites.arrayRowsPerStatement].randomElement(using: &random)!
                for row in 0..<rows {
                    pending.appendColumnRow(head: "INSERT INTO \(table) (k) SELECT * FROM ", types: ["bigint"], [.integer(Int64(row))], key: nil,
                                            copy: "COPY \(table) (k) FROM STDIN", fusion: .modifying(table))
                }
            case 2, 3:
                pending.append("UPDATE \(table) SET k = \(index)", [], fusion: .modifying(table))
            case 4:
                pending.append("SELECT 'undeclared \(index)'", [])
            default:
                _ = pending.appendRead("SELECT 'read \(index)'", [])
            }
        }
        pending.append("COMMIT", [])
        var waiting: Set<String> = []
        var dropped: [String] = []
        var copied: Set<String> = []
        let steps = pending.steps()
        for (place, step) in steps.enumerated() {
            switch step {
            case .copy(let sql, let rows):
                // A table's first COPY is dropped for exactly when it is big.
                let table = tables.first { sql.hasPrefix("COPY \($0) ") }!
                if copied.insert(table).inserted {
                    let lines = rows.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
                    let afterDrop = place > 0 && { if case .statement(let previous, _) = steps[place - 1] { previous == IndexDeferral.drop(table) } else { false } }()
                    #expect(afterDrop == (lines >= IndexDeferral.rows), "\(table)'s first COPY of \(lines) rows")
                }
            case .statement(let sql, _) where sql == IndexDeferral.restore:
                #expect(!waiting.isEmpty, "a restore with nothing waiting at \(place)")
                waiting = []
            case .statement(let sql, _):
                if let table = tables.first(where: { IndexDeferral.drop($0) == sql }) {
                    // Right before the table's first COPY.
                    guard place + 1 < steps.count, case .copy(let copy, _) = steps[place + 1] else {
                        Issue.record("a drop not followed by a COPY at \(place)")
                        continue
                    }
                    #expect(copy.hasPrefix("COPY \(table) "))
                    #expect(!dropped.contains(table))
                    dropped.append(table)
                    waiting.insert(table)
                    continue
                }
                let undeclared = sql.hasPrefix("SELECT '") || sql == "COMMIT"
                #expect(!undeclared || waiting.isEmpty, "\(sql) while \(waiting) wait")
                for table in waiting { #expect(!sql.contains(table), "\(sql) while \(table) waits") }
            }
        }
        #expect(waiting.isEmpty)
        #expect(!dropped.isEmpty, "no table's indexes waited: the test tests nothing")
    }
}
