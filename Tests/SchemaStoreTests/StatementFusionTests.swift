import DeterministicRandom
import SchemaRuntime
@testable import SchemaStore
import Testing

/// Writes sent as one statement (`WITH w1 AS (...), ... main`): only statements touching
/// different tables join, a statement that only reads ends its group, nothing before the
/// last read moves, and expanding each fused statement gives back the statements and
/// parameters appended, in order.
@Suite struct StatementFusionTests {
    @Test func parametersAreRenumberedOutsideQuotes() {
        let sql = #"INSERT INTO "t$1" (a) SELECT $1, $12, '$3', 'it''s $4', "a""$5", $ FROM x WHERE y = $2"#
        #expect(StatementFusion.renumbered(sql, by: 10)
            == #"INSERT INTO "t$1" (a) SELECT $11, $22, '$3', 'it''s $4', "a""$5", $ FROM x WHERE y = $12"#)
        #expect(StatementFusion.renumbered(sql, by: 0) == sql)
    }

    @Test func tablesAreThoseNamedAfterTheirKeywords() {
        #expect(StatementFusion.tablesNamed(in: #"INSERT INTO "a""b" ("x") SELECT * FROM unnest($1::text[])"#) == [#""a""b""#])
        #expect(StatementFusion.tablesNamed(in: #"DELETE FROM "t" x USING "u" WHERE x.id = u.id"#) == [#""t""#, #""u""#])
        #expect(StatementFusion.tablesNamed(in: """
            INSERT INTO "L" (owner, position, target) SELECT added.owner, coalesce((SELECT max(position) FROM "L" WHERE owner = added.owner), -1) \
            FROM (VALUES ($1::bigint, $2::bigint, $3::bigint)) AS added(owner, rank, target)
            """) == [#""L""#])
        #expect(StatementFusion.tablesNamed(in: "SELECT pg_notify($1, $2)").isEmpty)
        #expect(StatementFusion.modifying(#""t""#).declares(#"UPDATE "t" SET n = n + $1"#))
        #expect(!StatementFusion.modifying(#""t""#).declares(#"UPDATE "t" SET n = (SELECT count(*) FROM "u")"#))
    }

    /// One appended statement, as the test knows it.
    private struct Appended: Equatable {
        let sql: String
        let parameters: [StoredValue]
        let fusion: StatementFusion?
        let isRead: Bool
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func fusedStatementsExpandToTheAppendedOnesWithDisjointTables(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var pending = PendingWrites()
        var appended: [Appended] = []
        var lastRead = 0
        let tables = ["A", "B", "C", "D", "E"]
        for index in 0..<400 {
            let parameters = (0..<Int.random(in: 0...3, using: &random)).map { StoredValue.integer(Int64(index * 10 + $0)) }
            let values = parameters.indices.map { "$\($0 + 1)" }.joined(separator: ", ")
            let table = tables[Int.random(in: 0..<tables.count, using: &random)]
            let statement: Appended
            // Reads only early: what follows the last one may be fused.
            switch Int.random(in: index < 100 ? 0..<20 : 1..<20, using: &random) {
            case 0:
                statement = Appended(sql: "SELECT \(index) READ \(values)", parameters: parameters, fusion: nil, isRead: true)
                _ = pending.appendRead(statement.sql, parameters)
                lastRead = appended.count + 1
                appended.append(statement)
                continue
            case 1, 2:
                statement = Appended(sql: "SELECT pg_notify(\(index), \(values))", parameters: parameters, fusion: .selectingNoTable, isRead: false)
            case 3:
                statement = Appended(sql: "BARRIER \(index) \(values)", parameters: parameters, fusion: nil, isRead: false)
            case 4:
                // Two tables at once, as a delete using another would.
                let other = tables[(tables.firstIndex(of: table)! + 1) % tables.count]
                statement = Appended(sql: #"DELETE FROM "\#(table)" USING "\#(other)" WHERE \#(index) = \#(values)"#, parameters: parameters,
                                     fusion: StatementFusion(tables: [#""\#(table)""#, #""\#(other)""#], modifies: true), isRead: false)
            default:
                statement = Appended(sql: #"INSERT INTO "\#(table)" SELECT \#(index), \#(values)"#, parameters: parameters,
                                     fusion: .modifying(#""\#(table)""#), isRead: false)
            }
            pending.append(statement.sql, statement.parameters, fusion: statement.fusion)
            appended.append(statement)
        }
        var expanded: [Appended] = []
        var fusedCount = 0
        let steps = pending.steps()
        // Spelled again from the texts kept, the same.
        #expect(Self.texts(pending.steps()) == Self.texts(steps))
        for (place, step) in steps.enumerated() {
            guard case .statement(let sql, let parameters) = step else {
                Issue.record("a COPY among plain statements")
                continue
            }
            guard sql.hasPrefix("WITH ") else {
                let original = appended[expanded.count]
                #expect(sql == original.sql && parameters == original.parameters)
                expanded.append(original)
                continue
            }
            fusedCount += 1
            // Nothing before the last read is fused: its answer is read by its place.
            #expect(place >= lastRead)
            let parts = try #require(Self.parts(of: sql))
            var offset = 0
            var touched: Set<String> = []
            for (number, part) in parts.enumerated() {
                let original = appended[expanded.count]
                let count = original.parameters.count
                #expect(StatementFusion.renumbered(original.sql, by: offset) == part)
                #expect(Array(parameters[offset..<offset + count]) == original.parameters)
                let fusion = try #require(original.fusion)
                #expect(touched.isDisjoint(with: fusion.tables), "two parts of one statement touch one table: \(sql)")
                touched.formUnion(fusion.tables)
                // Only the main statement may leave rows alone.
                #expect(fusion.modifies || number == parts.count - 1)
                offset += count
                expanded.append(original)
            }
            #expect(offset == parameters.count)
        }
        #expect(expanded == appended)
        #expect(fusedCount > 10)
    }

    private static func texts(_ steps: [ServerBatchStep]) -> [String] {
        steps.map {
            switch $0 {
            case .statement(let sql, let parameters): "\(sql) \(parameters)"
            case .copy(let sql, let rows): "\(sql) \(rows)"
            }
        }
    }

    /// `WITH w1 AS (p1), w2 AS (p2) main` as `[p1, p2, main]`, for parts holding no
    /// parenthesis of their own (the main statement may).
    private static func parts(of sql: String) -> [String]? {
        var rest = Substring(sql.dropFirst("WITH ".count))
        var parts: [String] = []
        while let match = rest.firstMatch(of: /^w(\d+) AS \(/) {
            guard Int(match.1) == parts.count + 1, let close = rest.firstIndex(of: ")") else { return nil }
            parts.append(String(rest[match.range.upperBound..<close]))
            rest = rest[rest.index(after: close)...]
            if rest.hasPrefix(", ") { rest = rest.dropFirst(2) } else if rest.hasPrefix(" ") { rest = rest.dropFirst(); break } else { return nil }
        }
        return parts.count >= 1 ? parts + [String(rest)] : nil
    }

    /// Rows of one table merged into one statement join the statements beside them, and a
    /// `COPY` ends a group.
    @Test func mergedRowsJoinAndCopiesStandAlone() {
        var pending = PendingWrites()
        pending.append("BEGIN", [])
        let insert = RowInsert(table: "M", columns: ["id"], types: ["bigint"])
        pending.appendColumnRow(head: insert.head, types: insert.types, [.integer(1)], key: nil, copy: insert.copy, fusion: insert.fusion)
        let link = RowInsert(table: "L", columns: ["owner", "target"], types: ["bigint", "bigint"])
        for row in 0..<PendingWrites.copyRows {
            pending.appendColumnRow(head: link.head, types: link.types, [.integer(Int64(row)), .integer(1)], key: nil, copy: link.copy, fusion: link.fusion)
        }
        pending.append(#"INSERT INTO "N" SELECT $1"#, [.integer(2)], fusion: .modifying(#""N""#))
        pending.append("SELECT pg_notify($1)", [.text("c")], fusion: .selectingNoTable)
        let steps = pending.steps()
        #expect(steps.count == 4)
        guard steps.count == 4, case .statement(let begin, _) = steps[0], case .statement(let row, let parameters) = steps[1],
              case .copy = steps[2], case .statement(let last, let lastParameters) = steps[3] else {
            Issue.record("unexpected steps: \(steps)")
            return
        }
        #expect(begin == "BEGIN")
        // The lone row, not fused (its neighbour is a COPY): bound as it is.
        #expect(row == #"INSERT INTO "M" ("id") SELECT * FROM (VALUES ($1::bigint)) AS row"# && parameters == [.integer(1)])
        #expect(last == #"WITH w1 AS (INSERT INTO "N" SELECT $1) SELECT pg_notify($2)"# && lastParameters == [.integer(2), .text("c")])
    }
}
