@_spi(SchemaStore) import SchemaRuntime

/// How a store reading on demand from SQLite reads a sorted, limited list of a table's rows
/// whose filter asks an indexed field for one value, sorted by another indexed field
/// (`User.filter(\.status == .active).sorted(by: \.age).limit(20)`).
///
/// SQLite keeps no statistics here, so it reads such a list through the filter's index and
/// sorts every row holding the value: for a value most rows hold, as long as the table (a
/// value 89% of a million users hold: 220 ms for 20 rows, where walking the sort's index
/// takes a millisecond). In steps, each way is bounded:
///
/// 1. ``steps``: whether more than ``RelatedListRead/linkedRows`` rows hold the value (one
///    probe of the filter's index past them); if so, a walk of the table's first
///    ``RelatedListRead/walkedRows`` rows in the sort's first term (and the rows tying with
///    the last), keeping those the filter keeps. A row the walk did not pass sorts after
///    every row it passed, so if it found as many rows as the limit asks for (past the
///    offset), those are the answer.
/// 2. Otherwise ``plain``: the rows holding the value, read through the filter's index and
///    sorted.
///
/// So a read costs at most what reading the value's rows costs, and a walk of
/// ``RelatedListRead/walkedRows`` index entries where more than
/// ``RelatedListRead/linkedRows`` rows hold it. Each select names the index it reads
/// (`INDEXED BY`): left to choose, SQLite would read the walk through the filter's index.
struct FilteredListRead {
    /// Step 1: `many` returns a row where more than ``RelatedListRead/linkedRows`` rows hold
    /// the value; then `walk` runs. Nil where the filter asks no indexed field for one value,
    /// no index serves the sort's first term, the list is not limited or its limit asks for
    /// more rows than a walk is likely to find, or the dialect reads no list so.
    let steps: (many: SQLSelect, walk: SQLSelect)?
    /// Step 2: the list as one select (through the filter's index, with steps).
    let plain: SQLSelect

    /// The read of `select`, `entity`'s rows filtered, sorted and limited, in steps where
    /// `dialect` reads a table's lists so and the database has the SQL indexes they take
    /// (`hasIndex`).
    init(_ select: SQLSelect, entity: any AnyEntityPersister, dialect: any SQLDialect, hasIndex: (SQLIndex) -> Bool) {
        guard dialect.listSteps == .crossJoin, select.join == nil, select.leftJoins.isEmpty, let limit = select.limit,
              limit + select.offset <= RelatedListRead.walkedLimit, let first = select.order.first,
              let sortIndex = ListSteps.crossJoin.index(walking: first, of: entity, hasIndex: hasIndex),
              let (value, valueIndex) = Self.valueAsked(by: select.filter, of: entity, besides: sortIndex, hasIndex: hasIndex) else {
            steps = nil
            plain = select
            return
        }
        var plain = select, walk = select
        plain.index = valueIndex.name
        walk.index = sortIndex.name
        walk.rows = .first(count: RelatedListRead.walkedRows, by: first)
        // A row past the first `linkedRows` holding the value, if any.
        guard case .identical(let column, _) = value else { preconditionFailure("an equality") }
        let many = SQLSelect(output: .columns([column]), table: select.table, index: valueIndex.name, filter: value,
                             limit: 1, offset: RelatedListRead.linkedRows)
        self.steps = (many, walk)
        self.plain = plain
    }

    /// The select whose plan `explain` shows: the walk, or the one select.
    var explained: SQLSelect { steps?.walk ?? plain }

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
