@_spi(SchemaStore) import SchemaRuntime

/// How a store reading on demand reads a sorted, limited list of the rows one row links to
/// (`Chat.query(id).related(\.$messages).sorted(by: \.timestamp.desc).limit(20)`) where its
/// dialect reads such lists in steps (``SQLDialect/listSteps``).
///
/// Read as one join, the database picks one of two plans from its estimates: read every
/// link and sort their rows (cost grows with the list), or walk an index serving the sort
/// until enough of the rows it passes are linked (cheap for a list whose rows lie near the
/// index's start, unbounded for one whose rows lie far down it: a chat whose newest messages
/// are old). Its estimates cannot tell those lists apart, so it sometimes walks where reading
/// the links is a hundred times faster. In steps, each plan is bounded:
///
/// 1. Where the owner has at most ``linkedRows`` links, its links' rows, sorted (the
///    answer); else a walk past the table's first ``walkedRows`` rows in the sort's first
///    term, and every row tying with the last of them. Any linked row the walk did not pass
///    sorts after every row it passed, so if the walk found as many rows as the limit asks
///    for (past the offset), those are the answer.
/// 2. Otherwise (and where step 1 found no row at all) ``links``: every link's row, sorted.
///
/// So a read costs at most what reading the links costs, and a walk of ``walkedRows`` more
/// index entries for a list of more than ``linkedRows``. How step 1 runs is the dialect's
/// (``ListSteps``): one statement to a server, a statement per choice in process
/// (``ListReadSteps``).
struct RelatedListRead {
    /// Step 1; nil where no SQL index serves the sort's first term (no plan walks then), the
    /// list is not limited, or its limit asks for more rows than a walk is likely to find.
    let steps: ListReadSteps?
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
    /// reads so and the database has an SQL index serving the sort (`hasIndex`).
    init(_ joined: SQLSelect, owner: SQLExpression, entity: any AnyEntityPersister, dialect: any SQLDialect, hasIndex: (SQLIndex) -> Bool) {
        guard let spelling = dialect.listSteps, let join = joined.join, let limit = joined.limit, limit + joined.offset <= Self.walkedLimit,
              let first = joined.order.first, spelling.index(walking: first, of: entity, hasIndex: hasIndex) != nil else {
            steps = nil
            links = joined
            return
        }
        var links = joined
        links.rows = .eachJoined
        self.links = links
        switch spelling {
        case .lateral:
            var steps = joined
            steps.rows = .joinedOrFirst(joined: Self.linkedRows, owner: owner, count: Self.walkedRows, by: first)
            self.steps = .united(steps)
        case .crossJoin:
            // The owner's link past the first `linkedRows`, if any.
            let longList = SQLSelect(output: .columns([.column("owner", table: join.table)]), table: join.table, filter: owner,
                                     limit: 1, offset: Self.linkedRows)
            var walk = joined
            walk.rows = .first(count: Self.walkedRows, by: first)
            self.steps = .separate(long: longList, walk: walk)
        }
    }

    /// The select whose plan `explain` shows: step 1's, or the one join.
    var explained: SQLSelect { steps?.explained ?? links }
}
