import DeterministicRandom
@_spi(SchemaStore) import SchemaRuntime
@testable import SchemaStore
import Testing

/// ``SQLTextCache``: a select rendered from a cached text gets the same text and the same
/// bound values, in the same order, as one rendered anew, in both dialects, whatever the
/// values and wherever its placeholders start; and selects whose texts differ never share one.
@Suite struct SQLTextCacheTests {
    /// Random selects from small alphabets (so that near shapes meet), each rendered twice
    /// into a renderer with a cache: once with its own values, once with other values of the
    /// same shape; both after a random number of values bound before them.
    @Test(arguments: [SQLDialectCase.postgres, .sqlite])
    func aCachedTextBindsTheSameValuesAsARenderingAnew(_ dialectCase: SQLDialectCase) {
        let dialect = dialectCase.dialect
        let cache = SQLTextCache()
        var random = SplitMix64(seed: 29)
        var hits = 0
        for _ in 0..<3_000 {
            let structure = random.next()
            let before = Int.random(in: 0..<3, using: &random)
            let selects = [
                RandomSelect.make(structure: structure, values: random.next(), textConditions: dialectCase == .sqlite),
                RandomSelect.make(structure: structure, values: random.next(), textConditions: dialectCase == .sqlite),
            ]
            #expect(SQLTextCache.Key(select: selects[0], firstPlaceholder: 1) == SQLTextCache.Key(select: selects[1], firstPlaceholder: 1))
            for select in selects {
                let hadText = cache[SQLTextCache.Key(select: select, firstPlaceholder: before + 1)] != nil
                if hadText { hits += 1 }
                var cached = SQLRenderer(dialect, cache: cache)
                var fresh = SQLRenderer(dialect, cache: nil)
                for value in 0..<before {
                    _ = cached.render(.value(.integer(Int64(value))))
                    _ = fresh.render(.value(.integer(Int64(value))))
                }
                let text = cached.render(select)
                #expect(text == fresh.render(select), "\(select)")
                #expect(cached.bindings == fresh.bindings, "\(select)")
            }
        }
        // Every second rendering, and any first one of a shape met before, came from the cache.
        #expect(hits >= 3_000)
    }

    /// Selects that differ in what their text depends on: a value NULL or not, a list's
    /// padded length, an offset or none, a name; each pair has different keys and texts.
    @Test func selectsWhoseTextsDifferHaveDifferentKeys() {
        let id = SQLExpression.column("id")
        func select(_ filter: SQLExpression, limit: Int? = nil, offset: Int = 0, table: String = "T") -> SQLSelect {
            SQLSelect(output: .columns([id]), table: table, filter: filter, limit: limit, offset: offset)
        }
        let pairs: [(SQLSelect, SQLSelect)] = [
            (select(.identical(id, .value(.integer(1)))), select(.identical(id, .value(.null)))),
            (select(.oneOf(id, [.integer(1), .integer(2)])), select(.oneOf(id, [.integer(1), .integer(2), .integer(3)]))),
            (select(.oneOf(id, [])), select(.oneOf(id, [.integer(1)]))),
            (select(.boolean(true), limit: 5), select(.boolean(true), limit: 5, offset: 2)),
            (select(.boolean(true), offset: 1), select(.boolean(true))),
            (select(.boolean(true), limit: 1), select(.boolean(true))),
            (select(.boolean(true), table: "T"), select(.boolean(true), table: "U")),
            (select(.and([id, id])), select(.or([id, id]))),
            (select(.compare(id, .less, .value(.integer(1)))), select(.compare(id, .greater, .value(.integer(1))))),
        ]
        for (first, second) in pairs {
            #expect(!first.hasSameShape(as: second) && !second.hasSameShape(as: first), "\(first) \(second)")
            #expect(SQLTextCache.Key(select: first, firstPlaceholder: 1) != SQLTextCache.Key(select: second, firstPlaceholder: 1))
            let texts = [first, second].map { SQLRenderer.render($0, in: PostgreSQLDialect()).text }
            #expect(texts[0] != texts[1])
        }
        // Lists of the same padded length share a text, the last value repeated.
        let three = select(.oneOf(id, [.integer(1), .integer(2), .integer(3)]))
        let four = select(.oneOf(id, [.integer(4), .integer(5), .integer(6), .integer(7)]))
        #expect(three.hasSameShape(as: four))
        var values: [StoredValue] = []
        three.appendBoundValues(to: &values)
        #expect(values == [.integer(1), .integer(2), .integer(3), .integer(3)])
    }

    /// A full cache starts again empty rather than growing without bound.
    @Test func aFullCacheStartsAgain() {
        let cache = SQLTextCache(capacity: 4)
        for index in 0..<10 {
            let select = SQLSelect(output: .count, table: "T\(index)")
            cache[SQLTextCache.Key(select: select, firstPlaceholder: 1)] = "text \(index)"
            #expect(cache.count <= 4)
        }
        #expect(cache[SQLTextCache.Key(select: SQLSelect(output: .count, table: "T9"), firstPlaceholder: 1)] == "text 9")
    }
}

enum SQLDialectCase: CustomStringConvertible, Sendable {
    case postgres, sqlite

    var dialect: any SQLDialect {
        switch self {
        case .postgres: PostgreSQLDialect()
        case .sqlite: SQLiteDialect()
        }
    }

    var description: String { self == .postgres ? "PostgreSQL" : "SQLite" }
}

/// Random selects of every expression kind. What the text depends on comes from
/// `structure` alone; the values from `values`, except whether each is NULL and how many a
/// list holds within its padded length, which are part of the structure.
private struct RandomSelect {
    var structure: SplitMix64
    var values: SplitMix64
    /// Whether text conditions may appear: only SQLite's dialect renders them.
    let textConditions: Bool

    static func make(structure: UInt64, values: UInt64, textConditions: Bool) -> SQLSelect {
        var random = RandomSelect(structure: SplitMix64(seed: structure), values: SplitMix64(seed: values), textConditions: textConditions)
        return random.select(depth: 0)
    }

    private mutating func pick(_ count: Int) -> Int { Int.random(in: 0..<count, using: &structure) }

    private mutating func column() -> SQLExpression {
        .column(["id", "name", "age"][pick(3)], table: pick(4) == 0 ? "T" : nil)
    }

    private mutating func value(nullable: Bool = true) -> StoredValue {
        if nullable && pick(4) == 0 { return .null }
        switch Int.random(in: 0..<3, using: &values) {
        case 0: return .integer(Int64.random(in: -5...5, using: &values))
        case 1: return .text(["a", "b", "ab"][Int.random(in: 0..<3, using: &values)])
        default: return .real(Double(Int.random(in: 0..<4, using: &values)) / 2)
        }
    }

    private mutating func list() -> [StoredValue] {
        // The padded length from the structure, the count within it from the values.
        let padded = [0, 1, 2, 4, 8][pick(5)]
        let count = padded <= 1 ? padded : Int.random(in: (padded / 2 + 1)...padded, using: &values)
        return (0..<count).map { _ in value(nullable: false) }
    }

    private mutating func expression(depth: Int) -> SQLExpression {
        let leafOnly = depth >= 3
        switch pick(leafOnly ? 4 : textConditions ? 14 : 13) {
        case 0: return column()
        case 1: return .value(value())
        case 2: return .boolean(pick(2) == 0)
        case 3: return .storageOrder(table: pick(2) == 0 ? "T" : nil)
        case 4: return .compare(expression(depth: depth + 1), [.equal, .less, .greaterOrEqual][pick(3)], expression(depth: depth + 1))
        case 5: return .identical(expression(depth: depth + 1), pick(2) == 0 ? .value(value()) : expression(depth: depth + 1))
        case 6: return .isNull(expression(depth: depth + 1))
        case 7: return .and((0..<(1 + pick(3))).map { _ in expression(depth: depth + 1) })
        case 8: return .or((0..<(1 + pick(3))).map { _ in expression(depth: depth + 1) })
        case 9: return .not(expression(depth: depth + 1))
        case 10: return .oneOf(column(), list())
        case 11: return .oneOfSelected(column(), select(depth: depth + 1))
        case 12: return .swiftOrdered(pick(2) == 0 ? .value(value()) : column())
        default:
            return .textCondition(operation: Int64.random(in: 0..<4, using: &values), caseSensitive: Int.random(in: 0..<2, using: &values) == 0,
                                  query: ["x", "y z"][Int.random(in: 0..<2, using: &values)], fields: [column()])
        }
    }

    mutating func select(depth: Int) -> SQLSelect {
        let output: SQLSelect.Output = pick(5) == 0 ? .count : .columns((0..<(1 + pick(2))).map { _ in column() })
        var select = SQLSelect(output: output, table: ["T", "U"][pick(2)])
        if pick(4) == 0 { select.join = SQLSelect.Join(table: "L", on: .compare(.column("owner", table: "L"), .equal, .column("id", table: "T"))) }
        if pick(3) > 0 { select.filter = expression(depth: depth + 1) }
        select.order = (0..<pick(3)).map { _ in SQLOrderTerm(expression: pick(3) == 0 ? .swiftOrdered(column()) : column(), descending: pick(2) == 0) }
        if pick(2) == 0 { select.limit = Int.random(in: 1...50, using: &values) }
        if pick(2) == 0 { select.offset = Int.random(in: 1...9, using: &values) }
        return select
    }
}
