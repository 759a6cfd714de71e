@_spi(SchemaStore) import SchemaRuntime

// What a select's SQL text depends on, apart from its bound values: ``SQLTextCache`` keys
// texts on it, and a select's values are bound again in the order ``SQLRenderer`` binds
// them. The text depends on a bound value only through whether it is NULL (an equality
// with a value known not NULL is spelled so an index serves it) and, for a list, through
// its length padded to a power of two.

extension SQLSelect {
    /// Feeds `hasher` what this select's text depends on (see above).
    func hashShape(into hasher: inout Hasher) {
        switch output {
        case .columns(let columns):
            hasher.combine(columns.count)
            for column in columns { column.hashShape(into: &hasher) }
        case .count:
            hasher.combine(-1)
        }
        hasher.combine(table)
        hasher.combine(index)
        rows.hashShape(into: &hasher)
        hasher.combine(join?.table)
        join?.on.hashShape(into: &hasher)
        hasher.combine(leftJoins.count)
        for join in leftJoins {
            hasher.combine(join.table)
            join.on.hashShape(into: &hasher)
        }
        filter.hashShape(into: &hasher)
        hasher.combine(order.count)
        for term in order { term.hashShape(into: &hasher) }
        hasher.combine(limit != nil)
        hasher.combine(offset > 0)
    }

    /// Whether this select and `other` render to the same text (from the same placeholder
    /// number), whatever their bound values.
    func hasSameShape(as other: SQLSelect) -> Bool {
        guard table == other.table, index == other.index, rows.hasSameShape(as: other.rows), (limit == nil) == (other.limit == nil), (offset > 0) == (other.offset > 0),
              join?.table == other.join?.table, order.count == other.order.count, leftJoins.count == other.leftJoins.count,
              zip(leftJoins, other.leftJoins).allSatisfy({ $0.table == $1.table && $0.on.hasSameShape(as: $1.on) }),
              filter.hasSameShape(as: other.filter) else { return false }
        switch (output, other.output) {
        case (.count, .count): break
        case (.columns(let mine), .columns(let theirs)):
            guard SQLExpression.sameShapes(mine, theirs) else { return false }
        default: return false
        }
        switch (join, other.join) {
        case (nil, nil): break
        case (let mine?, let theirs?): guard mine.on.hasSameShape(as: theirs.on) else { return false }
        default: return false
        }
        return zip(order, other.order).allSatisfy { $0.hasSameShape(as: $1) }
    }

    /// Appends this select's bound values to `values` in the order ``SQLRenderer`` binds
    /// them (a table read as a union of selects aside: its dialect caches no text).
    func appendBoundValues(to values: inout [StoredValue]) {
        if let (_, condition, _, each, first) = steps {
            // The count of the rows deciding between the parts, then the two parts in turn.
            condition.appendBoundValues(to: &values)
            each.appendBoundValues(to: &values)
            first.appendBoundValues(to: &values)
            return
        }
        if case .columns(let columns) = output {
            for column in columns { column.appendBoundValues(to: &values) }
        }
        switch rows {
        case .first(_, let term): term.expression.appendBoundValues(to: &values)
        case .holding(let value): value.appendBoundValues(to: &values)
        default: break
        }
        join?.on.appendBoundValues(to: &values)
        for join in leftJoins { join.on.appendBoundValues(to: &values) }
        if filter != .boolean(true) { filter.appendBoundValues(to: &values) }
        for term in order { term.expression.appendBoundValues(to: &values) }
        if let limit {
            values.append(.integer(Int64(limit)))
            if offset > 0 { values.append(.integer(Int64(offset))) }
        } else if offset > 0 {
            values.append(.integer(Int64.max))
            values.append(.integer(Int64(offset)))
        }
    }
}

extension SQLSelect.Rows {
    func hashShape(into hasher: inout Hasher) {
        switch self {
        case .table:
            hasher.combine(0)
        case .first(let count, let term):
            hasher.combine(1); hasher.combine(count); term.hashShape(into: &hasher)
        case .eachJoined:
            hasher.combine(2)
        case .joinedOrFirst(let joined, let owner, let count, let term):
            hasher.combine(3); hasher.combine(joined); owner.hashShape(into: &hasher); hasher.combine(count); term.hashShape(into: &hasher)
        case .holding(let value):
            hasher.combine(4); value.hashShape(into: &hasher)
        case .holdingOrFirst(let rows, let value, let count, let term):
            hasher.combine(5); hasher.combine(rows); value.hashShape(into: &hasher); hasher.combine(count); term.hashShape(into: &hasher)
        }
    }

    func hasSameShape(as other: SQLSelect.Rows) -> Bool {
        switch (self, other) {
        case (.table, .table), (.eachJoined, .eachJoined):
            return true
        case (.first(let count, let term), .first(let otherCount, let otherTerm)):
            return count == otherCount && term.hasSameShape(as: otherTerm)
        case (.joinedOrFirst(let joined, let owner, let count, let term), .joinedOrFirst(let otherJoined, let otherOwner, let otherCount, let otherTerm)):
            return joined == otherJoined && owner.hasSameShape(as: otherOwner) && count == otherCount && term.hasSameShape(as: otherTerm)
        case (.holding(let value), .holding(let otherValue)):
            return value.hasSameShape(as: otherValue)
        case (.holdingOrFirst(let rows, let value, let count, let term), .holdingOrFirst(let otherRows, let otherValue, let otherCount, let otherTerm)):
            return rows == otherRows && value.hasSameShape(as: otherValue) && count == otherCount && term.hasSameShape(as: otherTerm)
        default:
            return false
        }
    }
}

extension SQLOrderTerm {
    func hashShape(into hasher: inout Hasher) {
        expression.hashShape(into: &hasher)
        hasher.combine(descending)
    }

    func hasSameShape(as other: SQLOrderTerm) -> Bool {
        descending == other.descending && expression.hasSameShape(as: other.expression)
    }
}

extension SQLExpression {
    /// The length a list of `count` values is bound as (``SQLRenderer``): padded to a power of two.
    static func paddedCount(_ count: Int) -> Int {
        count <= 1 ? count : 1 << (Int.bitWidth - (count - 1).leadingZeroBitCount)
    }

    func hashShape(into hasher: inout Hasher) {
        switch self {
        case .column(let name, let table):
            hasher.combine(0); hasher.combine(name); hasher.combine(table)
        case .value(let value):
            hasher.combine(1); hasher.combine(value == .null)
        case .boolean(let value):
            hasher.combine(2); hasher.combine(value)
        case .compare(let lhs, let op, let rhs):
            hasher.combine(3); lhs.hashShape(into: &hasher); hasher.combine(op); rhs.hashShape(into: &hasher)
        case .identical(let lhs, let rhs):
            hasher.combine(4); lhs.hashShape(into: &hasher); rhs.hashShape(into: &hasher)
        case .isNull(let operand):
            hasher.combine(5); operand.hashShape(into: &hasher)
        case .and(let operands), .or(let operands):
            hasher.combine(self.isAnd ? 6 : 7); hasher.combine(operands.count)
            for operand in operands { operand.hashShape(into: &hasher) }
        case .not(let operand):
            hasher.combine(8); operand.hashShape(into: &hasher)
        case .oneOf(let operand, let values):
            hasher.combine(9); operand.hashShape(into: &hasher); hasher.combine(Self.paddedCount(values.count))
        case .oneOfSelected(let operand, let select):
            hasher.combine(10); operand.hashShape(into: &hasher); select.hashShape(into: &hasher)
        case .swiftOrdered(let operand):
            hasher.combine(11); operand.hashShape(into: &hasher)
        case .storageOrder(let table):
            hasher.combine(12); hasher.combine(table)
        case .textCondition(_, _, _, let fields):
            hasher.combine(13); hasher.combine(fields.count)
            for field in fields { field.hashShape(into: &hasher) }
        }
    }

    static func sameShapes(_ lhs: [SQLExpression], _ rhs: [SQLExpression]) -> Bool {
        lhs.count == rhs.count && zip(lhs, rhs).allSatisfy { $0.hasSameShape(as: $1) }
    }

    func hasSameShape(as other: SQLExpression) -> Bool {
        switch (self, other) {
        case (.column(let name, let table), .column(let otherName, let otherTable)):
            return name == otherName && table == otherTable
        case (.value(let value), .value(let otherValue)):
            return (value == .null) == (otherValue == .null)
        case (.boolean(let value), .boolean(let otherValue)):
            return value == otherValue
        case (.compare(let lhs, let op, let rhs), .compare(let otherLHS, let otherOp, let otherRHS)):
            return op == otherOp && lhs.hasSameShape(as: otherLHS) && rhs.hasSameShape(as: otherRHS)
        case (.identical(let lhs, let rhs), .identical(let otherLHS, let otherRHS)):
            return lhs.hasSameShape(as: otherLHS) && rhs.hasSameShape(as: otherRHS)
        case (.isNull(let operand), .isNull(let otherOperand)), (.not(let operand), .not(let otherOperand)),
             (.swiftOrdered(let operand), .swiftOrdered(let otherOperand)):
            return operand.hasSameShape(as: otherOperand)
        case (.and(let operands), .and(let otherOperands)), (.or(let operands), .or(let otherOperands)):
            return Self.sameShapes(operands, otherOperands)
        case (.oneOf(let operand, let values), .oneOf(let otherOperand, let otherValues)):
            return Self.paddedCount(values.count) == Self.paddedCount(otherValues.count) && operand.hasSameShape(as: otherOperand)
        case (.oneOfSelected(let operand, let select), .oneOfSelected(let otherOperand, let otherSelect)):
            return operand.hasSameShape(as: otherOperand) && select.hasSameShape(as: otherSelect)
        case (.storageOrder(let table), .storageOrder(let otherTable)):
            return table == otherTable
        case (.textCondition(_, _, _, let fields), .textCondition(_, _, _, let otherFields)):
            return Self.sameShapes(fields, otherFields)
        default:
            return false
        }
    }

    /// Appends this expression's bound values in the order ``SQLRenderer`` binds them.
    func appendBoundValues(to values: inout [StoredValue]) {
        switch self {
        case .column, .boolean, .storageOrder:
            break
        case .value(let value):
            values.append(value)
        case .compare(let lhs, _, let rhs), .identical(let lhs, let rhs):
            lhs.appendBoundValues(to: &values)
            rhs.appendBoundValues(to: &values)
        case .isNull(let operand), .not(let operand), .swiftOrdered(let operand):
            operand.appendBoundValues(to: &values)
        case .and(let operands), .or(let operands):
            for operand in operands { operand.appendBoundValues(to: &values) }
        case .oneOf(let operand, let listed):
            guard let last = listed.last else { return }
            operand.appendBoundValues(to: &values)
            values.append(contentsOf: listed)
            values.append(contentsOf: repeatElement(last, count: Self.paddedCount(listed.count) - listed.count))
        case .oneOfSelected(let operand, let select):
            operand.appendBoundValues(to: &values)
            select.appendBoundValues(to: &values)
        case .textCondition(let operation, let caseSensitive, let query, let fields):
            values.append(.integer(operation))
            values.append(.integer(caseSensitive ? 1 : 0))
            values.append(.text(query))
            for field in fields { field.appendBoundValues(to: &values) }
        }
    }

    private var isAnd: Bool {
        if case .and = self { true } else { false }
    }
}
