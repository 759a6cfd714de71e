@_spi(SchemaStore) import SchemaRuntime

/// An SQL expression built from a query's structure. Names are quoted and values bound by the
/// ``SQLDialect`` that renders it (``SQLRenderer``): no user value ever becomes SQL text.
///
/// Every expression the compilers build is two-valued: it is never NULL, so `NOT` and `OR`
/// over it mean what they mean in Swift (comparisons with NULL are spelled with
/// ``identical(_:_:)``, ``isNull(_:)`` and explicit NULL branches).
indirect enum SQLExpression: Hashable, Sendable {
    /// A column of the table the statement reads, or of `table` when given (a join).
    case column(String, table: String? = nil)
    /// A bound value.
    case value(StoredValue)
    case boolean(Bool)
    case compare(SQLExpression, SQLComparison, SQLExpression)
    /// Equal, NULL included: never NULL itself (`IS` / `IS NOT DISTINCT FROM`).
    case identical(SQLExpression, SQLExpression)
    case isNull(SQLExpression)
    case and([SQLExpression])
    case or([SQLExpression])
    case not(SQLExpression)
    /// One of these values (never NULL: NULL is not listed).
    case oneOf(SQLExpression, [StoredValue])
    /// One of the values a select of one column returns (`IN (SELECT ...)`), NULL never
    /// among them.
    case oneOfSelected(SQLExpression, SQLSelect)
    /// Text compared in Swift's string order (the dialect's collation).
    case swiftOrdered(SQLExpression)
    /// The order in which rows were first stored (SQLite's rowid): a query's source order.
    case storageOrder(table: String? = nil)
    /// A text condition over fields (`schemagen_text` in SQLite): 1 when it holds, else 0.
    case textCondition(operation: Int64, caseSensitive: Bool, query: String, fields: [SQLExpression])

    /// `lhs AND rhs`, dropping `TRUE` operands.
    static func all(_ operands: [SQLExpression]) -> SQLExpression {
        let kept = operands.filter { $0 != .boolean(true) }
        if kept.contains(.boolean(false)) { return .boolean(false) }
        switch kept.count {
        case 0: return .boolean(true)
        case 1: return kept[0]
        default: return .and(kept)
        }
    }

    /// `lhs OR rhs`, dropping `FALSE` operands.
    static func any(_ operands: [SQLExpression]) -> SQLExpression {
        let kept = operands.filter { $0 != .boolean(false) }
        if kept.contains(.boolean(true)) { return .boolean(true) }
        switch kept.count {
        case 0: return .boolean(false)
        case 1: return kept[0]
        default: return .or(kept)
        }
    }

    /// Whether this is a bound value that is not NULL (as it is, or in Swift's string order).
    var isNonNullValue: Bool {
        switch self {
        case .value(let value): value != .null
        case .swiftOrdered(let operand): operand.isNonNullValue
        default: false
        }
    }

    /// `NOT operand`, folding constants.
    static func negation(_ operand: SQLExpression) -> SQLExpression {
        switch operand {
        case .boolean(let value): .boolean(!value)
        case .not(let inner): inner
        default: .not(operand)
        }
    }
}

/// A comparison operator; its operands are never NULL where the compilers use it.
enum SQLComparison: String, Hashable, Sendable {
    case equal = "=", notEqual = "<>", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
}

/// One key of an `ORDER BY`.
struct SQLOrderTerm: Hashable, Sendable {
    var expression: SQLExpression
    var descending: Bool
}

/// A `SELECT` from one table, optionally joined to a link table, and left-joined to the
/// tables of what its rows link to.
struct SQLSelect: Hashable, Sendable {
    enum Output: Hashable, Sendable {
        case columns([SQLExpression])
        case count
    }

    /// An inner join: `JOIN table ON on`.
    struct Join: Hashable, Sendable {
        var table: String
        var on: SQLExpression
    }

    /// Which rows of `table` the select reads, and how: choices made for a dialect whose
    /// planner cannot see where a related list's rows lie in the table (``RelatedListRead``).
    enum Rows: Hashable, Sendable {
        /// The table's rows, read as the database plans.
        case table
        /// The table's first `count` rows in the order of `term`, and every row tying with
        /// the last of them (`FETCH FIRST ... WITH TIES`: a walk down an index serving
        /// `term`, bounded), each joined to its rows of `join`, read by key.
        case first(count: Int, by: SQLOrderTerm)
        /// The row of each row of `join`, read by key: the join's table drives the read,
        /// so its cost grows with the rows joined, never with the table.
        case eachJoined
        /// ``eachJoined`` where `join` holds at most `joined` rows meeting `owner` (a
        /// condition on its table), else ``first(count:by:)``: both selects, each kept from
        /// running by its condition (`UNION ALL`), with a last column saying which one
        /// answered (1 the walk, 0 the joined rows).
        case joinedOrFirst(joined: Int, owner: SQLExpression, count: Int, by: SQLOrderTerm)
        /// The table's rows meeting `value` (an equality an index of the table serves), read
        /// on their own, so that the planner cannot read them by walking another index.
        case holding(SQLExpression)
        /// ``holding(_:)`` where at most `rows` rows meet `value`, else
        /// ``first(count:by:)``: both selects, each kept from running by its condition, as
        /// ``joinedOrFirst(joined:owner:count:by:)`` keeps its own.
        case holdingOrFirst(rows: Int, value: SQLExpression, count: Int, by: SQLOrderTerm)
    }

    var output: Output
    var table: String
    /// The SQL index the select must read `table` through (SQLite's `INDEXED BY`), where the
    /// planner, without statistics, would pick another (``FilteredListRead``); nil to let it
    /// choose. Only for a dialect reading lists so (``ListSteps/crossJoin``).
    var index: String?
    var rows: Rows = .table
    var join: Join?
    /// `LEFT JOIN table ON on`, in order, after `join`: each must match at most one row per
    /// row before it, so that the select's order and limit keep their meaning.
    var leftJoins: [Join] = []
    var filter: SQLExpression = .boolean(true)
    var order: [SQLOrderTerm] = []
    var limit: Int?
    var offset = 0
}

extension SQLSelect {
    /// A select read in steps (``Rows/joinedOrFirst(joined:owner:count:by:)``,
    /// ``Rows/holdingOrFirst(rows:value:count:by:)``) as its two parts, each a select of its
    /// own: the few rows read at once, then the walk; with the table whose rows meeting
    /// `condition` decide between them, and their bound. Nil for any other select.
    /// ``SQLRenderer`` writes the parts in this order, and binds their values so
    /// (``appendBoundValues(to:)``).
    var steps: (counted: String, condition: SQLExpression, bound: Int, each: SQLSelect, first: SQLSelect)? {
        var each = self, first = self
        switch rows {
        case .joinedOrFirst(let joined, let owner, let count, let term):
            guard let join else { return nil }
            each.rows = .eachJoined
            first.rows = .first(count: count, by: term)
            return (join.table, owner, joined, each, first)
        case .holdingOrFirst(let bound, let value, let count, let term):
            each.rows = .holding(value)
            first.rows = .first(count: count, by: term)
            return (table, value, bound, each, first)
        default:
            return nil
        }
    }
}
