@_spi(SchemaStore) import SchemaRuntime

/// How a store reading on demand reads a sorted, limited list of a table's rows whose
/// filter asks an indexed field for one value, sorted by another indexed field
/// (`User.filter(\.status == .away).sorted(by: \.age).limit(20)`).
///
/// Left to plan it, a database reads the value's rows through the filter's index and sorts
/// them (cost grows with the rows holding the value), or walks the sort's index until
/// enough of them turn up (unbounded where they lie far down it). SQLite, keeping no
/// statistics, reads the value's rows: a value 89% of a million users hold, 220 ms for 20 of
/// them. PostgreSQL walks where it expects the value's rows spread evenly: among a million
/// users, the 20 youngest of the 10,000 away, all aged 99, 0.4 s. In steps, each way is
/// bounded:
///
/// 1. ``steps``: where at most ``RelatedListRead/linkedRows`` rows hold the value, those
///    rows, sorted (the answer); else a walk of the table's first
///    ``RelatedListRead/walkedRows`` rows in the sort's first term (and the rows tying with
///    the last), keeping those the filter keeps. A row the walk did not pass sorts after
///    every row it passed, so if it found as many rows as the limit asks for (past the
///    offset), those are the answer.
/// 2. Otherwise ``rest``: the rows holding the value, read through the filter's index and
///    sorted.
///
/// So a read costs at most what reading the value's rows costs, and a walk of
/// ``RelatedListRead/walkedRows`` index entries where more rows hold it. As for related
/// lists, PostgreSQL runs step 1 as one statement, SQLite as a statement per choice
/// (``ListSteps``), each naming the index it reads (`INDEXED BY`): left to choose, SQLite
/// would read the walk through the filter's index.
struct FilteredListRead {
    /// Step 1; nil where the filter asks no indexed field for one value, no index serves
    /// the sort's first term, the list is not limited or its limit asks for more rows than
    /// a walk is likely to find, or the dialect reads no list so.
    let steps: ListReadSteps?
    /// Step 2: the rows holding the value, sorted; without steps, the list as one select.
    let rest: SQLSelect

    /// The read of `select`, `entity`'s rows filtered, sorted and limited, in steps where
    /// `dialect` reads lists so and the database has the SQL indexes they take (`hasIndex`).
    init(_ select: SQLSelect, entity: any AnyEntityPersister, dialect: any SQLDialect, hasIndex: (SQLIndex) -> Bool) {
        guard let spelling = dialect.listSteps, select.join == nil, select.leftJoins.isEmpty, let limit = select.limit,
              limit + select.offset <= RelatedListRead.walkedLimit, let first = select.order.first,
              let sortIndex = spelling.index(walking: first, of: entity, hasIndex: hasIndex),
              let (value, valueIndex) = Self.valueAsked(by: select.filter, of: entity, besides: sortIndex, hasIndex: hasIndex) else {
            steps = nil
            rest = select
            return
        }
        var rest = select
        switch spelling {
        case .lateral:
            var steps = select
            steps.rows = .holdingOrFirst(rows: RelatedListRead.linkedRows, value: value, count: RelatedListRead.walkedRows, by: first)
            rest.rows = .holding(value)
            self.steps = .united(steps)
        case .crossJoin:
            var walk = select
            walk.index = sortIndex.name
            walk.rows = .first(count: RelatedListRead.walkedRows, by: first)
            rest.index = valueIndex.name
            // A row past the first `linkedRows` holding the value, if any.
            guard case .identical(let column, _) = value else { preconditionFailure("an equality") }
            let many = SQLSelect(output: .columns([column]), table: select.table, index: valueIndex.name, filter: value,
                                 limit: 1, offset: RelatedListRead.linkedRows)
            self.steps = .separate(long: many, walk: walk)
        }
        self.rest = rest
    }

    /// The select whose plan `explain` shows: step 1's, or the one select.
    var explained: SQLSelect { steps?.explained ?? rest }

    /// A conjunct of `filter` asking one column for one value that is not NULL, and the SQL
    /// index the database has that finds its rows (starting with that column, ordered as the
    /// equality compares), other than `sortIndex`.
    private static func valueAsked(by filter: SQLExpression, of entity: any AnyEntityPersister, besides sortIndex: SQLIndex,
                                   hasIndex: (SQLIndex) -> Bool) -> (SQLExpression, SQLIndex)? {
        switch filter {
        case .and(let operands):
            for operand in operands {
                if let asked = valueAsked(by: operand, of: entity, besides: sortIndex, hasIndex: hasIndex) { return asked }
            }
            return nil
        case .identical(let lhs, let rhs) where rhs.isNonNullValue:
            let (column, swiftOrdered) = if case .swiftOrdered(let inner) = lhs { (inner, true) } else { (lhs, false) }
            guard case .column(let name, let table) = column, table == nil || table == entity.tableName,
                  let index = ListSteps.index(startingWith: name, swiftOrdered: swiftOrdered, of: entity, hasIndex: hasIndex),
                  index.name != sortIndex.name else { return nil }
            return (filter, index)
        default:
            return nil
        }
    }
}
