@_spi(SchemaStore) import SchemaRuntime

/// SQL text and the values bound to its parameters, in order.
struct RenderedSQL: Hashable, Sendable, CustomStringConvertible {
    var text: String
    var bindings: [StoredValue]

    var description: String { text }
}

/// Writes ``SQLSelect`` and ``SQLExpression`` values as one dialect's SQL, binding every value.
///
/// A select whose shape the dialect's ``SQLDialect/textCache`` has seen is not written
/// again: its values are bound and the text reused.
struct SQLRenderer {
    let dialect: any SQLDialect
    private(set) var bindings: [StoredValue] = []
    /// Where texts of selects are kept, nil to write each one anew.
    private let cache: SQLTextCache?

    init(_ dialect: any SQLDialect) { self.init(dialect, cache: dialect.textCache) }

    init(_ dialect: any SQLDialect, cache: SQLTextCache?) {
        self.dialect = dialect
        self.cache = cache
    }

    static func render(_ select: SQLSelect, in dialect: any SQLDialect) -> RenderedSQL {
        var renderer = SQLRenderer(dialect)
        let text = renderer.render(select)
        return RenderedSQL(text: text, bindings: renderer.bindings)
    }

    mutating func render(_ select: SQLSelect) -> String {
        guard let cache else { return renderAnew(select) }
        let key = SQLTextCache.Key(select: select, firstPlaceholder: bindings.count + 1)
        let start = bindings.count
        if let text = cache[key] {
            select.appendBoundValues(to: &bindings)
            assert(rendersAnew(select, as: text, from: start), "a cached text or its values differ from the select's own: \(select)")
            return text
        }
        let text = renderAnew(select)
        cache[key] = text
        return text
    }

    /// Whether `select` rendered anew, after the values bound before `start`, gives `text`
    /// and the values bound since `start` (checked in debug builds on every cached text).
    private func rendersAnew(_ select: SQLSelect, as text: String, from start: Int) -> Bool {
        var fresh = SQLRenderer(dialect, cache: nil)
        fresh.bindings = Array(bindings[..<start])
        return fresh.renderAnew(select) == text && fresh.bindings == bindings
    }

    private mutating func renderAnew(_ select: SQLSelect) -> String {
        if select.join == nil, select.leftJoins.isEmpty, let limit = select.limit, let arms = dialect.unionArms(of: select.table) {
            return render(select, limit: limit, eachOf: arms)
        }
        guard let (counted, condition, bound, each, first) = select.steps else { return renderOne(select) }
        // Whether the owner has at most `joined` rows of the join, counted once (at most
        // `joined + 1` of them); each part runs only where its condition on that holds
        // (PostgreSQL evaluates it once, before the rest of the part). Only one part returns
        // rows, in its own order.
        let few = dialect.quote("schemagen:few")
        let rows = "SELECT 1 FROM \(dialect.tableReference(counted)) WHERE \(render(condition)) LIMIT \(bound + 1)"
        return "WITH \(few) AS MATERIALIZED (SELECT count(*) <= \(bound) AS \(few) FROM (\(rows)) AS \(dialect.quote("schemagen:joined"))) "
            + "(" + renderOne(each, marker: 0, condition: "(SELECT \(few) FROM \(few))") + ") UNION ALL ("
            + renderOne(first, marker: 1, condition: "NOT (SELECT \(few) FROM \(few))") + ")"
    }

    /// One `SELECT`; with `marker`, a last column holding it; with `condition`, that too
    /// in its `WHERE`.
    private mutating func renderOne(_ select: SQLSelect, marker: Int? = nil, condition: String? = nil) -> String {
        var sql = "SELECT "
        switch select.output {
        case .columns(let columns): sql += columns.map { render($0) }.joined(separator: ", ")
        case .count: sql += "count(*)"
        }
        if let marker { sql += ", \(marker) AS \(dialect.quote("schemagen:walked"))" }
        sql += " FROM " + from(select)
        for join in select.leftJoins { sql += " LEFT JOIN \(dialect.tableReference(join.table)) ON \(render(join.on))" }
        var conditions = (select.filter == .boolean(true) ? [] : [render(select.filter)]) + (condition.map { [$0] } ?? [])
        if case .first(let count, let term) = select.rows, dialect.listSteps == .crossJoin {
            conditions.append(walkedRange(select.table, count: count, by: term))
        }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        if !select.order.isEmpty { sql += " ORDER BY " + orderTerms(select.order) }
        if let limit = select.limit {
            sql += " LIMIT " + bind(.integer(Int64(limit)))
            if select.offset > 0 { sql += " OFFSET " + bind(.integer(Int64(select.offset))) }
        } else if select.offset > 0 {
            // Both dialects accept an offset alone in their own way; a limit of "all" is portable.
            sql += " LIMIT " + bind(.integer(Int64.max)) + " OFFSET " + bind(.integer(Int64(select.offset)))
        }
        return sql
    }

    /// The `FROM` clause of `select`: its table, or the rows of it ``SQLSelect/Rows`` names,
    /// and its join.
    private mutating func from(_ select: SQLSelect) -> String {
        var table = dialect.tableReference(select.table)
        if let index = select.index {
            precondition(dialect.listSteps == .crossJoin, "only SQLite is told which index to read")
            table += " INDEXED BY \(dialect.quote(index))"
        }
        guard let join = select.join else {
            switch select.rows {
            case .first where dialect.listSteps == .crossJoin:
                // A range of its index (``walkedRange(_:count:by:)``).
                return table
            case .first(let count, let term):
                return "(SELECT * FROM \(table) ORDER BY \(orderTerms([term])) FETCH FIRST \(count) ROWS WITH TIES) AS \(dialect.quote(select.table))"
            case .holding(let value):
                // `OFFSET 0` keeps the planner from merging it into the select, whose sort
                // it would serve by walking the sort's index past every row not meeting it.
                return "(SELECT * FROM \(table) WHERE \(render(value)) OFFSET 0) AS \(dialect.quote(select.table))"
            case .table:
                return table
            case .eachJoined, .joinedOrFirst, .holdingOrFirst:
                preconditionFailure("a select of a table alone reads its rows, the first of them, or those holding a value")
            }
        }
        let joined = dialect.tableReference(join.table)
        switch select.rows {
        case .table:
            return "\(table) JOIN \(joined) ON \(render(join.on))"
        case .first where dialect.listSteps == .crossJoin:
            // The walk's rows are a range of the index (``walkedRange(_:count:by:)``).
            return "\(table) CROSS JOIN \(joined) ON \(render(join.on))"
        case .eachJoined where dialect.listSteps == .crossJoin:
            return "\(joined) CROSS JOIN \(table) ON \(render(join.on))"
        case .first(let count, let term):
            // Each subquery is named as its table, so that expressions naming the table's
            // columns name its; `OFFSET 0` keeps the planner from flattening it into a join
            // it would plan as it likes (reading the whole join first, say).
            return "(SELECT * FROM \(table) ORDER BY \(orderTerms([term])) FETCH FIRST \(count) ROWS WITH TIES) AS \(dialect.quote(select.table)) "
                + "CROSS JOIN LATERAL (SELECT * FROM \(joined) WHERE \(render(join.on)) OFFSET 0) AS \(dialect.quote(join.table))"
        case .eachJoined:
            return "\(joined) CROSS JOIN LATERAL (SELECT * FROM \(table) WHERE \(render(join.on)) OFFSET 0) AS \(dialect.quote(select.table))"
        case .joinedOrFirst, .holdingOrFirst:
            preconditionFailure("rendered as its two parts")
        case .holding:
            preconditionFailure("a joined select reads its table's rows, or the first of them")
        }
    }

    /// The rows of `table` that sort no later than its `count`th row in the order of `term`
    /// (``ListSteps/crossJoin``): those before it and every row tying with it, as
    /// `FETCH FIRST count ROWS WITH TIES` reads them, a range of an index serving `term`. With
    /// fewer than `count` rows, or a NULL `count`th row, none (the links are read then).
    /// `term` is a column, and binds nothing.
    private mutating func walkedRange(_ table: String, count: Int, by term: SQLOrderTerm) -> String {
        let expression = render(term.expression)
        let last = "SELECT \(expression) FROM \(dialect.tableReference(table)) ORDER BY \(orderTerms([term])) LIMIT 1 OFFSET \(count - 1)"
        return "\(expression) \(term.descending ? ">=" : "<=") (\(last))"
    }

    /// `select` over a table that is the union of `arms`: each arm filtered, sorted and
    /// limited to `limit + offset` rows (so an index of its own serves it), then those rows
    /// sorted and limited again. The same rows in the same order as over the union itself.
    private mutating func render(_ select: SQLSelect, limit: Int, eachOf arms: [String]) -> String {
        let table = dialect.quote(select.table)
        var sql = "SELECT "
        switch select.output {
        case .columns(let columns): sql += columns.map { render($0) }.joined(separator: ", ")
        case .count: sql += "count(*)"
        }
        var parts: [String] = []
        for arm in arms {
            var part = "SELECT * FROM (\(arm)) AS \(table)"
            if select.filter != .boolean(true) { part += " WHERE " + render(select.filter) }
            if !select.order.isEmpty { part += " ORDER BY " + orderTerms(select.order) }
            part += " LIMIT " + bind(.integer(Int64(limit) + Int64(select.offset)))
            parts.append("SELECT * FROM (\(part))")
        }
        sql += " FROM (" + parts.joined(separator: " UNION ALL ") + ") AS \(table)"
        if !select.order.isEmpty { sql += " ORDER BY " + orderTerms(select.order) }
        sql += " LIMIT " + bind(.integer(Int64(limit)))
        if select.offset > 0 { sql += " OFFSET " + bind(.integer(Int64(select.offset))) }
        return sql
    }

    private mutating func orderTerms(_ order: [SQLOrderTerm]) -> String {
        order.map { dialect.orderTerm(render($0.expression), descending: $0.descending) }.joined(separator: ", ")
    }

    mutating func render(_ expression: SQLExpression) -> String {
        switch expression {
        case .column(let name, let table):
            return table.map { dialect.quote($0) + "." } .map { $0 + dialect.quote(name) } ?? dialect.quote(name)
        case .value(let value):
            return bind(value)
        case .boolean(let value):
            return dialect.boolean(value)
        case .compare(let lhs, let op, let rhs):
            return "\(render(lhs)) \(op.rawValue) \(render(rhs))"
        case .identical(let lhs, let rhs) where rhs.isNonNullValue:
            return dialect.identical(render(lhs), nonNullValue: render(rhs))
        case .identical(let lhs, let rhs):
            return dialect.identical(render(lhs), render(rhs))
        case .isNull(let operand):
            return "\(render(operand)) IS NULL"
        case .and(let operands):
            return "(" + operands.map { render($0) }.joined(separator: " AND ") + ")"
        case .or(let operands):
            return "(" + operands.map { render($0) }.joined(separator: " OR ") + ")"
        case .not(let operand):
            return "NOT (" + render(operand) + ")"
        case .oneOf(let operand, let values):
            guard !values.isEmpty else { return dialect.boolean(false) }
            let lhs = render(operand)
            // Padded to a power of two by repeating the last value (which changes nothing), so
            // that lists of any length share a few statement texts, hence prepared statements.
            var padded = values
            while padded.count & (padded.count - 1) != 0 { padded.append(values[values.count - 1]) }
            return "\(lhs) IN (" + padded.map { bind($0) }.joined(separator: ", ") + ")"
        case .oneOfSelected(let operand, let select):
            return "\(render(operand)) IN (" + render(select) + ")"
        case .swiftOrdered(let operand):
            return dialect.swiftOrdered(render(operand))
        case .textCondition(let operation, let caseSensitive, let query, let fields):
            guard let function = dialect.textFunction else { preconditionFailure("the compiler checks text conditions in Swift for this dialect") }
            let arguments = [bind(.integer(operation)), bind(.integer(caseSensitive ? 1 : 0)), bind(.text(query))] + fields.map { render($0) }
            return "\(function)(\(arguments.joined(separator: ", "))) = 1"
        case .storageOrder(let table):
            return table.map { dialect.quote($0) + "." + dialect.storageOrderColumn } ?? dialect.storageOrderColumn
        }
    }

    private mutating func bind(_ value: StoredValue) -> String {
        bindings.append(value)
        return dialect.placeholder(bindings.count)
    }
}

