@_spi(SchemaStore) import SchemaRuntime

/// How a store reading on demand reads a sorted, limited list of the rows one row links to
/// (`Chat.query(id).related(\.$messages).sorted(by: \.timestamp.desc).limit(20)`) where its
/// dialect reads such lists in steps (``SQLDialect/readsRelatedListsInSteps``).
///
/// Read as one join, the database picks one of two plans from its estimates: read every
/// link and sort their rows (cost grows with the list), or walk an index serving the sort
/// until enough of the rows it passes are linked (cheap for a list whose rows lie near the
/// index's start, unbounded for one whose rows lie far down it: a chat whose newest messages
/// are old). Its estimates cannot tell those lists apart, so it sometimes walks where reading
/// the links is a hundred times faster. In steps, each plan is bounded:
///
/// 1. ``steps``, one statement: where the owner has at most ``linkedRows`` links, its links'
///    rows, sorted (the answer); else a walk past the table's first ``walkedRows`` rows in
///    the sort's first term, and every row tying with the last of them. Any linked row the
///    walk did not pass sorts after every row it passed, so if the walk found as many rows
///    as the limit asks for (past the offset), those are the answer.
/// 2. Otherwise (and where step 1 found no row at all) ``links``: every link's row, sorted.
///
/// So a read costs at most what reading the links costs, and a walk of ``walkedRows`` more
/// index entries for a list of more than ``linkedRows``.
struct RelatedListRead {
    /// Step 1; nil where no SQL index serves the sort's first term (no plan walks then), the
    /// list is not limited, or its limit asks for more rows than a walk is likely to find.
    let steps: SQLSelect?
    /// Step 2: the list's rows read through its links, by key; or, without steps, the list
    /// as one join.
    let links: SQLSelect

    /// Lists of up to this many links are read through them at once: about what a walk that
    /// finds too few rows costs (2026-12-07, PostgreSQL 15: a link's row read by key about
    /// 3 µs, a row walked 1.6 µs).
    static let linkedRows = 500
    /// How many rows of the table the walk passes (ties aside).
    static let walkedRows = 1_000
    /// Limits (offsets included) of up to this many rows are walked for: the list must hold
    /// a twentieth of the rows walked for the walk to answer.
    static let walkedLimit = walkedRows / 20

    /// The read of `joined` (a select of `entity`'s rows joined to the link table, as one
    /// join, whose rows of the link table are those meeting `owner`), in steps where `dialect`
    /// reads so.
    init(_ joined: SQLSelect, owner: SQLExpression, entity: any AnyEntityPersister, dialect: any SQLDialect) {
        guard dialect.readsRelatedListsInSteps, joined.join != nil, let limit = joined.limit, limit + joined.offset <= Self.walkedLimit,
              let first = joined.order.first, Self.isServed(first, entity) else {
            steps = nil
            links = joined
            return
        }
        var steps = joined, links = joined
        steps.rows = .joinedOrFirst(joined: Self.linkedRows, owner: owner, count: Self.walkedRows, by: first)
        links.rows = .eachJoined
        self.steps = steps
        self.links = links
    }

    /// The select that runs first.
    var first: SQLSelect { steps ?? links }

    /// Whether the rows step 1 returned (each ending with the part's marker, ``SQLSelect/Rows/joinedOrFirst(joined:owner:count:by:)``)
    /// are the answer: the links' rows, or as many rows of the walk as the limit asks for.
    static func answers(_ rows: [[StoredValue]], limit: Int?) -> Bool {
        guard let marker = rows.first?.last else { return false }
        return marker == .integer(0) || rows.count == limit
    }

    /// Whether an SQL index of `entity` starts with `term`'s column (either direction: an
    /// index is read backwards as readily).
    private static func isServed(_ term: SQLOrderTerm, _ entity: any AnyEntityPersister) -> Bool {
        let (expression, swiftOrdered) = if case .swiftOrdered(let inner) = term.expression { (inner, true) } else { (term.expression, false) }
        guard case .column(let name, let table) = expression, table == nil || table == entity.tableName else { return false }
        return entity.sqlIndexes.contains { index in
            index.columns.first.map { $0.name == name && $0.swiftOrdered == swiftOrdered } ?? false
        }
    }
}
