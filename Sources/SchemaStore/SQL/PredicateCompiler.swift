@_spi(SchemaStore) import SchemaRuntime

/// Compiles a predicate to an SQL filter for one entity table.
///
/// The filter keeps every row the predicate keeps (it may keep more): conditions SQL cannot
/// decide exactly as Swift does compile to `TRUE` and are left to Swift, which checks every
/// row the filter returns. ``Compiled/isExact`` says whether the filter keeps exactly the
/// predicate's rows, so SQL may also count, sort and limit them.
///
/// Exact: comparisons of fields whose columns order as Swift does (``SQLOrderPreserving``:
/// integers, `Bool`, `String` in Swift's string order), `== nil` and `!= nil` on any column,
/// `==` and `!=` on enum cases, save-time ranges, and `&&`, `||`, `!` of exact conditions.
/// Not compiled (yet): text conditions, `Double` and `Date` comparisons (NaN and -0.0 are
/// stored apart from other numbers), JSON fields, relation conditions, Swift closures.
struct PredicateCompiler {
    struct Compiled: Hashable, Sendable {
        var filter: SQLExpression
        var isExact: Bool

        /// No narrowing: every row, checked in Swift.
        static let everything = Compiled(filter: .boolean(true), isExact: false)
    }

    private let columns: [AnyKeyPath: FieldColumn]
    /// The same columns by their `.desc` key paths (`\.age.desc`), as descending sorts name them.
    private let descendingColumns: [AnyKeyPath: FieldColumn]
    private let updatedAtColumn: String?
    /// Qualifies column names in a join.
    private let table: String?

    /// Whether the database decides text conditions (``SQLDialect/textFunction``).
    private let textFunction: Bool

    /// A compiler for the database `dialect` reads: what it can decide in SQL depends on it
    /// (a text condition needs the runtime's text function).
    init(entity: any AnyEntityPersister, qualified: Bool = false, dialect: any SQLDialect) {
        textFunction = dialect.textFunction != nil
        var columns: [AnyKeyPath: FieldColumn] = [:], descending: [AnyKeyPath: FieldColumn] = [:]
        for field in entity.fieldColumns {
            columns[field.keyPath] = field
            if let path = field.descendingKeyPath { descending[path] = field }
        }
        self.columns = columns
        self.descendingColumns = descending
        updatedAtColumn = entity.shape.tracksUpdatedAt ? TableLayout.updatedAtColumn : nil
        table = qualified ? entity.tableName : nil
    }

    func compile(_ structure: PredicateStructure) -> Compiled {
        switch structure {
        case .comparison(let keyPath, let op, let value, let stored):
            return comparison(keyPath, op, value, stored)
        case .and(let parts):
            let compiled = parts.map(compile)
            return Compiled(filter: .all(compiled.map(\.filter)), isExact: compiled.allSatisfy(\.isExact))
        case .or(let parts):
            let compiled = parts.map(compile)
            return Compiled(filter: .any(compiled.map(\.filter)), isExact: compiled.allSatisfy(\.isExact))
        case .not(let inner):
            // The complement of a superset is not a superset: only an exact filter negates.
            let compiled = compile(inner)
            return compiled.isExact ? Compiled(filter: .negation(compiled.filter), isExact: true) : .everything
        case .updated(let times):
            // An entity that does not track save times never matches, as in Swift.
            guard let updatedAtColumn else { return Compiled(filter: .boolean(false), isExact: true) }
            let column = SQLExpression.column(updatedAtColumn, table: table)
            return Compiled(filter: .all([.negation(.isNull(column)),
                                          .compare(column, .greaterOrEqual, .value(.real(times.lowerBound))),
                                          .compare(column, .lessOrEqual, .value(.real(times.upperBound)))]), isExact: true)
        case .text(let keyPaths, let operation, let query, let caseSensitive):
            // Decided by the runtime's own text function, where the database has one.
            guard textFunction, let code = SQLiteTextFunction.code(operation) else { return .everything }
            var fields: [SQLExpression] = []
            for keyPath in keyPaths {
                guard let field = columns[keyPath], !field.column.isJSON, field.column.type == .text else { return .everything }
                fields.append(.column(field.column.name, table: table))
            }
            return Compiled(filter: .textCondition(operation: code, caseSensitive: caseSensitive, query: query, fields: fields), isExact: true)
        case .opaque:
            return .everything
        }
    }

    /// The SQL order of a sort on these fields, or nil when one of them does not sort in SQL
    /// as in Swift.
    func order(_ fields: [(keyPath: AnyKeyPath, descending: Bool)]) -> [SQLOrderTerm]? {
        var terms: [SQLOrderTerm] = []
        for field in fields {
            let column = field.descending ? descendingColumns[field.keyPath] : columns[field.keyPath]
            guard let column, column.ordersInSQL, !column.column.isJSON else { return nil }
            terms.append(SQLOrderTerm(expression: ordered(column), descending: field.descending))
        }
        return terms
    }

    /// The field's column as queries compare it, and its SQL indexes order it.
    private func ordered(_ field: FieldColumn) -> SQLExpression {
        let column = SQLExpression.column(field.column.name, table: table)
        return field.comparesInSwiftOrder ? .swiftOrdered(column) : column
    }

    private func comparison(_ keyPath: AnyKeyPath, _ op: PredicateStructure.Operator, _ value: IndexValue, _ stored: StoredValue?) -> Compiled {
        guard let field = columns[keyPath], !field.column.isJSON, let stored else { return .everything }
        let column = ordered(field)
        if stored == .null {
            // nil sorts before every value.
            let filter: SQLExpression = switch op {
            case .equal, .lessOrEqual: .isNull(column)
            case .notEqual, .greater: .negation(.isNull(column))
            case .less: .boolean(false)
            case .greaterOrEqual: .boolean(true)
            }
            return Compiled(filter: filter, isExact: true)
        }
        let bound = SQLExpression.value(stored)
        if case .ordinal = value {
            // An enum case: stored as its raw value, which identifies it, but ordered by
            // declaration, which SQL does not know.
            switch op {
            case .equal: return Compiled(filter: .identical(.column(field.column.name, table: table), bound), isExact: true)
            case .notEqual: return Compiled(filter: .negation(.identical(.column(field.column.name, table: table), bound)), isExact: true)
            default: return .everything
            }
        }
        guard field.ordersInSQL else { return .everything }
        // Both sides of a text comparison in Swift's order (PostgreSQL normalizes each side).
        let operand = field.comparesInSwiftOrder ? SQLExpression.swiftOrdered(bound) : bound
        let isNull = SQLExpression.isNull(column)
        let nullable = field.column.isNullable
        let filter: SQLExpression = switch op {
        case .equal: .identical(column, operand)
        case .notEqual: .negation(.identical(column, operand))
        // nil is less than every value: it passes `<` and `<=`, never `>` or `>=`.
        case .less: nullable ? .any([isNull, .compare(column, .less, operand)]) : .compare(column, .less, operand)
        case .lessOrEqual: nullable ? .any([isNull, .compare(column, .lessOrEqual, operand)]) : .compare(column, .lessOrEqual, operand)
        case .greater: nullable ? .all([.negation(isNull), .compare(column, .greater, operand)]) : .compare(column, .greater, operand)
        case .greaterOrEqual: nullable ? .all([.negation(isNull), .compare(column, .greaterOrEqual, operand)]) : .compare(column, .greaterOrEqual, operand)
        }
        return Compiled(filter: filter, isExact: true)
    }
}
