import DeterministicRandom
import SchemaRuntime
@testable import SchemaStore
import Testing

/// The PostgreSQL backend's write batching: rows merge into multi-row statements only when
/// nothing can tell (consecutive, same statement, a conflict key at most once), so running
/// the merged statements does what running each row's statement in order does.
@Suite struct PendingWritesTests {
    /// Random rows and plain statements; each merged statement is expanded back into rows,
    /// which must be the appended sequence exactly, in order.
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
            default:
                let table = ["A", "B"][Int.random(in: 0..<2, using: &random)]
                let key = Int64.random(in: 0..<40, using: &random)
                pending.appendRow(head: "INSERT INTO \(table)", tail: " ON CONFLICT", [.integer(key), .integer(Int64(index))], key: .integer(key))
                appended.append("\(table) \(key) \(index)")
            }
        }
        #expect(pending.count == appended.count)
        var replayed: [String] = []
        var merged = 0
        for (sql, parameters) in pending.statements() {
            if sql.hasPrefix("DELETE FROM C WHERE owner IN (") {
                #expect(sql == "DELETE FROM C WHERE owner IN (" + parameters.indices.map { "$\($0 + 1)" }.joined(separator: ", ") + ")")
                for case .integer(let index) in parameters { replayed.append("C \(index)") }
                if parameters.count > 1 { merged += 1 }
                continue
            }
            guard sql.hasPrefix("INSERT INTO ") else {
                replayed.append(sql)
                continue
            }
            let table = String(sql.dropFirst("INSERT INTO ".count).prefix(1))
            #expect(sql.hasSuffix(" ON CONFLICT"))
            let rows = stride(from: 0, to: parameters.count, by: 2).map { parameters[$0..<$0 + 2] }
            #expect(rows.count <= PendingWrites.rowsPerStatement)
            // An upsert may not touch one row twice.
            #expect(Set(rows.map(\.first!)).count == rows.count, "a key repeats in one statement")
            if rows.count > 1 { merged += 1 }
            for row in rows {
                guard case .integer(let key) = row.first!, case .integer(let index) = row.last! else { continue }
                replayed.append("\(table) \(key) \(index)")
            }
        }
        #expect(replayed == appended)
        #expect(merged > 50, "rows were hardly merged")
    }

    @Test func placeholdersAreNumberedAcrossRowsWithTheirCasts() {
        var pending = PendingWrites()
        pending.appendRow(head: "INSERT INTO t (a, b)", tail: " X", casts: ["", "::bigint"], [.text("x"), .integer(1)], key: nil)
        pending.appendRow(head: "INSERT INTO t (a, b)", tail: " X", casts: ["", "::bigint"], [.text("y"), .integer(2)], key: nil)
        let statements = pending.statements()
        #expect(statements.map(\.sql) == ["INSERT INTO t (a, b) VALUES ($1, $2::bigint), ($3, $4::bigint) X"])
        #expect(statements.first?.parameters == [.text("x"), .integer(1), .text("y"), .integer(2)])
        pending.removeAll()
        #expect(pending.isEmpty && pending.statements().isEmpty)
    }
}
