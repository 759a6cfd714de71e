/// How one database spells what ``SQLRenderer`` writes: quoting, bound parameters,
/// NULL-safe equality, Swift's string order, storage order and NULL placement in sorts.
///
/// Two dialects exist from the start (``SQLiteDialect``, ``PostgreSQLDialect``), so the
/// query compiler never writes database-specific text itself.
protocol SQLDialect: Sendable {
    /// A quoted identifier: names are always quoted (schema names may be SQL keywords).
    func quote(_ identifier: String) -> String
    /// The placeholder of the `index`-th bound value, from 1.
    func placeholder(_ index: Int) -> String
    /// `lhs` equals `rhs`, NULL equal to NULL; never NULL itself.
    func identical(_ lhs: String, _ rhs: String) -> String
    /// `lhs` equals `value`, a bound value that is not NULL: the same answers as
    /// ``identical(_:_:)``, spelled so that an index on `lhs` serves it.
    func identical(_ lhs: String, nonNullValue value: String) -> String
    /// `text` as compared in Swift's string order.
    func swiftOrdered(_ text: String) -> String
    /// The column recording the order in which rows were first stored.
    var storageOrderColumn: String { get }
    /// An `ORDER BY` term; NULL sorts before every value ascending, after every value
    /// descending, as nil does in queries.
    func orderTerm(_ expression: String, descending: Bool) -> String
    /// A column of an index, ordered as ``orderTerm(_:descending:)`` orders it.
    func indexTerm(_ expression: String, descending: Bool) -> String
    func boolean(_ value: Bool) -> String
    /// The function deciding text conditions as the runtime does, if the database has one.
    var textFunction: String? { get }
    /// What a `FROM` or `JOIN` names for the table `name`, whose columns are qualified by
    /// `name`: the quoted table here; a union of selects under that name over a store's packs
    /// (``PackUnionDialect``).
    func tableReference(_ name: String) -> String
    /// For a table read as the union of several selects (``PackUnionDialect``): those
    /// selects, so that a sorted and limited query sorts and limits each one (each served by
    /// its own indexes) before merging the few rows they keep. Nil for a table.
    func unionArms(of table: String) -> [String]?
    /// Where ``SQLRenderer`` keeps the texts of selects it wrote in this dialect, by shape;
    /// nil when a select's text depends on more than its shape (``PackUnionDialect``).
    var textCache: SQLTextCache? { get }
    /// How a sorted, limited list is read in bounded steps: the rows one row links to
    /// (``RelatedListRead``), and on SQLite a table's rows filtered on an indexed field
    /// (``FilteredListRead``); nil to read each as one select the database plans as it likes.
    var listSteps: ListSteps? { get }
}

/// How a dialect reads a list in steps (``RelatedListRead``, ``FilteredListRead``).
enum ListSteps: Sendable {
    /// PostgreSQL: one statement (a round trip), in which the count of the owner's links
    /// decides which of two parts returns rows (``SQLSelect/Rows/joinedOrFirst(joined:owner:count:by:)``).
    /// The walk is `FETCH FIRST n ROWS WITH TIES`; each part reads its other table through a
    /// `CROSS JOIN LATERAL` subquery fenced with `OFFSET 0`, which the planner cannot flatten
    /// back into a join it would plan as it likes.
    case lateral
    /// SQLite: a statement per step, in process: whether the owner has more links (or the
    /// value more rows) than are read at once, then the walk or the links (the rows). (In one statement SQLite opened a scratch
    /// table for each part and the count whichever part ran, and freeing their page caches
    /// made the allocator give memory back at every read: a chat of 100 read 0.06-0.12 ms
    /// slower than as one join.) The walk is the rows sorting no later than the `n`th (its
    /// value read by a subquery down the same index, so ties with it are walked too), a
    /// range of the index; `CROSS JOIN` makes each statement's left table its outer loop. A
    /// range of an index skips NULL, so a walk cannot start with NULLs: an ascending sort of a
    /// column that may hold NULL is not walked.
    case crossJoin
}

extension SQLDialect {
    func tableReference(_ name: String) -> String { quote(name) }
    func unionArms(of table: String) -> [String]? { nil }
    var textCache: SQLTextCache? { nil }
    var listSteps: ListSteps? { nil }
}

/// SQLite: `?` parameters, `IS` for NULL-safe equality, the `schemagen` collation (registered
/// on every connection, ``SQLiteCollation``), `rowid`.
struct SQLiteDialect: SQLDialect {
    func quote(_ identifier: String) -> String { quoted(identifier) }
    func placeholder(_ index: Int) -> String { "?" }
    func identical(_ lhs: String, _ rhs: String) -> String { "\(lhs) IS \(rhs)" }
    // SQLite's `IS` uses indexes as `=` does.
    func identical(_ lhs: String, nonNullValue value: String) -> String { "\(lhs) IS \(value)" }
    func swiftOrdered(_ text: String) -> String { "\(text) COLLATE \(quote(SQLiteCollation.name))" }
    var storageOrderColumn: String { "rowid" }
    // SQLite sorts NULL first ascending and last descending already.
    func orderTerm(_ expression: String, descending: Bool) -> String { expression + (descending ? " DESC" : " ASC") }
    func indexTerm(_ expression: String, descending: Bool) -> String { expression + (descending ? " DESC" : "") }
    func boolean(_ value: Bool) -> String { value ? "1" : "0" }
    var textFunction: String? { SQLiteTextFunction.name }
    var textCache: SQLTextCache? { Self.texts }
    private static let texts = SQLTextCache()
    // It reads the owner's links first and sorts their rows, whatever their number: a chat's
    // newest 20 of its 100,000 messages took 108-152 ms, walking the index 3. Without
    // statistics, it reads every row an equality on an indexed field finds, and sorts them.
    var listSteps: ListSteps? { .crossJoin }
}

/// PostgreSQL: `$n` parameters, `IS NOT DISTINCT FROM`, NFC-normalized text under the "C"
/// collation (byte order of NFC UTF-8 is Swift's string order), an explicit storage-order
/// column, explicit NULL placement.
struct PostgreSQLDialect: SQLDialect {
    static let storageOrder = "schemagen:order"

    func quote(_ identifier: String) -> String { quoted(identifier) }
    func placeholder(_ index: Int) -> String { "$\(index)" }
    func identical(_ lhs: String, _ rhs: String) -> String { "\(lhs) IS NOT DISTINCT FROM \(rhs)" }
    // PostgreSQL uses no index for `IS NOT DISTINCT FROM`, but does for `=`. Alone, `=` would
    // be NULL for a NULL `lhs`, and NOT of it NULL too (false where `!=` must be true): the
    // second term makes it false, never NULL.
    func identical(_ lhs: String, nonNullValue value: String) -> String { "(\(lhs) = \(value) AND \(lhs) IS NOT NULL)" }
    // Parenthesized: the same spelling serves in expressions and in expression indexes.
    func swiftOrdered(_ text: String) -> String { "(normalize(\(text), NFC) COLLATE \"C\")" }
    var storageOrderColumn: String { quote(Self.storageOrder) }
    func orderTerm(_ expression: String, descending: Bool) -> String { expression + (descending ? " DESC NULLS LAST" : " ASC NULLS FIRST") }
    // Ordered as the queries order (PostgreSQL's default puts NULL the other way), so that
    // an index serves their sorts.
    func indexTerm(_ expression: String, descending: Bool) -> String { orderTerm(expression, descending: descending) }
    func boolean(_ value: Bool) -> String { value ? "TRUE" : "FALSE" }
    // Text conditions are checked in Swift: PostgreSQL runs no Swift.
    var textFunction: String? { nil }
    var textCache: SQLTextCache? { Self.texts }
    private static let texts = SQLTextCache()
    // Its plans for the join may walk the sort's index until the limit is met, however far
    // down the list's rows lie (a chat whose newest messages are the oldest of 100,000:
    // 171 ms, where reading its 300 links took 1).
    var listSteps: ListSteps? { .lateral }
}
