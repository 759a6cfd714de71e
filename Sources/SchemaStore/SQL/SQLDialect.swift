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
    /// Whether a sorted, limited list of the rows one row links to is read in bounded steps
    /// (``RelatedListRead``) rather than as one join the database plans as it likes.
    var readsRelatedListsInSteps: Bool { get }
}

extension SQLDialect {
    func tableReference(_ name: String) -> String { quote(name) }
    func unionArms(of table: String) -> [String]? { nil }
    var textCache: SQLTextCache? { nil }
    var readsRelatedListsInSteps: Bool { false }
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
    var readsRelatedListsInSteps: Bool { true }
}
