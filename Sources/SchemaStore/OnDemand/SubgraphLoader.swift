@_spi(SchemaStore) import SchemaRuntime

/// Builds the context one query runs in, from a store's SQL snapshot: the rows the query may
/// return (narrowed by SQL), then what it reads from them (``ReadReach``): the links of each
/// relation it follows, whole and in order, and the rows they link to, onward.
///
/// Every row is read at most once; every slot of an entity is read at most once. Reads are
/// batched (one statement per relation and per few hundred ids), never one per entity.
///
/// A loader can start from what an earlier one read in the same snapshot (``Cache``): a
/// snapshot never changes, so those rows and links are still what it holds, and the query
/// reads only what they lack. Rows in the context that a query did not ask for change
/// nothing: candidates are named by key, lists are followed through their links, whole.
struct SubgraphLoader {
    let layout: StoreLayout
    let links: LinkLookup
    let backend: any SnapshotConnection
    /// The rows and links read, and what is known to be read.
    private(set) var cache: Cache
    var context: Context { cache.context }
    /// How many statements ran (for ``QueryPlan`` notes and tests).
    private(set) var statements = 0

    /// How many ids one `IN (...)` list binds.
    static let batchSize = 500

    /// `ids` in lists of at most ``batchSize``, in order.
    static func batches(_ ids: [StoredValue]) -> [[StoredValue]] {
        stride(from: 0, to: ids.count, by: batchSize).map { Array(ids[$0..<min($0 + batchSize, ids.count)]) }
    }

    /// What loaders of one snapshot read: a context of rows and whole link slots, and which
    /// rows and slots were read (found or not).
    struct Cache {
        fileprivate(set) var context = Context.unindexed()
        /// Keys whose row was read (found or not), per entity table: keys, not ids, since an
        /// `Int32` hashes for a fraction of a `StoredValue` holding a string.
        fileprivate var readKeys: [ObjectIdentifier: Set<Int32>] = [:]
        /// Per slot of an entity table, the keys whose links were read.
        fileprivate var readSlots: [TableSlot: Set<Int32>] = [:]
        /// How many rows the context holds.
        fileprivate(set) var rows = 0
    }

    fileprivate struct TableSlot: Hashable {
        let table: ObjectIdentifier
        let slot: LinkSlot
    }

    init(layout: StoreLayout, links: LinkLookup, backend: any SnapshotConnection, resuming cache: Cache = Cache()) {
        self.layout = layout
        self.links = links
        self.backend = backend
        self.cache = cache
    }

    /// Marks the links of `slot` of `keys` (of `table`) read; returns the keys not read before, in order.
    private mutating func markSlotsRead(_ table: ObjectIdentifier, _ slot: LinkSlot, _ keys: [Int32]) -> [Int32] {
        let tableSlot = TableSlot(table: table, slot: slot)
        // Taken out while inserting: a copy left in the dictionary would make each insert copy the set.
        var read = cache.readSlots.removeValue(forKey: tableSlot) ?? []
        read.reserveCapacity(read.count + keys.count)
        let new = keys.filter { read.insert($0).inserted }
        cache.readSlots[tableSlot] = read
        return new
    }

    /// Reads the rows `select` returns (every column of `entity`, in the select's order) and
    /// returns their keys in that order.
    mutating func loadRows(_ entity: any AnyEntityPersister, _ select: SQLSelect) throws -> [Int32] {
        try loadRows(entity, try rows(of: PackUnion.readingSources(select, of: backend.packUnion)))
    }

    /// The rows `select` returns, in order: one statement.
    private mutating func rows(of select: SQLSelect) throws -> [[StoredValue]] {
        var rows: [[StoredValue]] = []
        statements += 1
        try backend.rows(select) { rows.append($0) }
        return rows
    }

    /// Reads the rows `select` returns as ``loadRows(_:_:)`` does, then what `reach` follows
    /// from them. Where statements cost round trips (``SnapshotConnection/joinsToOneFollows``),
    /// the select also reads, as `LEFT JOIN`s, the to-one links `reach` follows first that are
    /// stored with `entity`, and the rows they link to: one round trip where reading them
    /// after took two. Each row has at most one such link (its owner is the link table's
    /// key) and each link one row, so the select's order and limit mean what they did.
    /// `select` names every column with its table (a joined table may have the same names).
    mutating func loadRows(_ entity: any AnyEntityPersister, _ select: SQLSelect, following reach: ReadReach) throws -> [Int32] {
        let keys = try loadRows(entity, select, joining: reach)
        // What is left: other edges, and what is followed from the rows read here.
        try follow(reach, from: keys, of: entity.table)
        return keys
    }

    /// Reads a related list's rows in the steps `read` holds (``RelatedListRead``), then what
    /// `reach` follows from the answer's rows. Returns their keys in order.
    mutating func loadRows(_ entity: any AnyEntityPersister, _ read: RelatedListRead, following reach: ReadReach) throws -> [Int32] {
        try loadRows(entity, read.steps, else: read.links, following: reach)
    }

    /// Reads a filtered list's rows in the steps `read` holds (``FilteredListRead``), then
    /// what `reach` follows from the answer's rows. Returns their keys in order.
    mutating func loadRows(_ entity: any AnyEntityPersister, _ read: FilteredListRead, following reach: ReadReach) throws -> [Int32] {
        try loadRows(entity, read.steps, else: read.rest, following: reach)
    }

    /// Runs `steps`; where they give no answer, `rest` (the list's rows read at once).
    private mutating func loadRows(_ entity: any AnyEntityPersister, _ steps: ListReadSteps?, else rest: SQLSelect,
                                   following reach: ReadReach) throws -> [Int32] {
        switch steps {
        case .united(let steps)?:
            let (wide, joined) = selectReading(entity, steps, following: reach)
            let rows = try rows(of: wide)
            if ListReadSteps.answers(rows, limit: steps.limit) {
                return try loadAnswer(entity, rows.map { Array($0.dropLast()) }, joined, following: reach)
            }
        case .separate(let long, let walk)?:
            guard try !rows(of: long).isEmpty else { break }
            let (wide, joined) = selectReading(entity, walk, following: reach)
            let rows = try rows(of: wide)
            if rows.count == walk.limit { return try loadAnswer(entity, rows, joined, following: reach) }
        case nil:
            break
        }
        return try loadRows(entity, rest, following: reach)
    }

    /// Loads `rows`, a list's answer read with the to-one links `joined`, then what
    /// `reach` follows from them. Returns their keys in order.
    private mutating func loadAnswer(_ entity: any AnyEntityPersister, _ rows: [[StoredValue]], _ joined: [ToOneJoin],
                                     following reach: ReadReach) throws -> [Int32] {
        let keys = joined.isEmpty ? try loadRows(entity, rows) : try loadJoinedRows(entity, rows, width: entity.columns.count, joined)
        try follow(reach, from: keys, of: entity.table)
        return keys
    }

    /// Runs `select` (every column of `entity`) with the to-one links of `reach` joined
    /// where it can (``selectReading(_:_:following:)``), and loads what it read; returns the
    /// keys of `entity`'s rows, in order.
    private mutating func loadRows(_ entity: any AnyEntityPersister, _ select: SQLSelect, joining reach: ReadReach) throws -> [Int32] {
        let (wide, joined) = selectReading(entity, select, following: reach)
        guard !joined.isEmpty else { return try loadRows(entity, select) }
        return try loadJoinedRows(entity, try rows(of: wide), width: entity.columns.count, joined)
    }

    /// Loads `rows` of a select ``selectReading(_:_:following:)`` widened with `joined`: the
    /// first `width` values of each are a row of `entity`, loaded as ``loadRows(_:_:)``
    /// loads them; then, per join, the link's target and its row. The links of rows whose
    /// slot was not read before are loaded, with the rows they name. Returns the keys of the
    /// rows of `entity`, in order.
    private mutating func loadJoinedRows(_ entity: any AnyEntityPersister, _ rows: [[StoredValue]], width: Int,
                                         _ joined: [ToOneJoin]) throws -> [Int32] {
        let keys = try loadRows(entity, rows.map { Array($0[..<width]) })
        var start = width
        for join in joined {
            let width = 1 + join.target.columns.count
            let parts = rows.map { $0[start..<(start + width)] }
            start += width
            // The links of the rows whose slot was not read before, and the rows they name.
            let pending = Set(markSlotsRead(entity.table, join.slot, keys))
            var pairs: [[StoredValue]] = []
            var targetRows: [[StoredValue]] = []
            for (row, (key, part)) in zip(rows, zip(keys, parts)) where pending.contains(key) && part.first != .null {
                pairs.append([row[0], part[part.startIndex]])
                // A link to no row (never written so) reads as a NULL id.
                if part[part.startIndex + 1] != .null { targetRows.append(Array(part.dropFirst())) }
            }
            try loadLinks(join.slot, from: join.source, pairs: pairs, owner: entity, target: join.target)
            _ = try loadRows(join.target, targetRows)
            markTargetsRead(join.slot, of: pending, in: entity.table, target: join.target.table)
        }
        return keys
    }

    /// Marks every target of `slot` of `owners` (keys of `table`, whose links were just read
    /// with the rows they name) as read: those without a row too.
    private mutating func markTargetsRead(_ slot: LinkSlot, of owners: some Sequence<Int32>, in table: ObjectIdentifier, target: ObjectIdentifier) {
        // Taken out while inserting: a copy left in the dictionary would make each insert copy the set.
        var read = cache.readKeys.removeValue(forKey: target) ?? []
        for owner in owners { read.formUnion(context.targetKeys(table, slot, of: owner)) }
        cache.readKeys[target] = read
    }

    /// Whether selects that may join what their rows follow name their columns' table
    /// (where statements cost round trips, ``SnapshotConnection/joinsToOneFollows``).
    var qualifiesColumns: Bool { backend.joinsToOneFollows && backend.packUnion == nil }

    /// `select` (of `entity`'s rows) as ``loadRows(_:_:following:)`` runs it: with the to-one
    /// links `reach` follows joined to it, and their rows, which it returns; else `select` itself.
    func selectReading(_ entity: any AnyEntityPersister, _ select: SQLSelect, following reach: ReadReach) -> (SQLSelect, joined: [ToOneJoin]) {
        guard qualifiesColumns, case .columns(let columns) = select.output else { return (select, []) }
        let joined = toOneJoins(of: entity, select, reach)
        guard !joined.isEmpty else { return (select, []) }
        var wide = select
        var output = columns
        let id = SQLExpression.column(entity.columns[0].name, table: entity.tableName)
        for join in joined {
            // A link stored with the rows is keyed by its owner; one read from its target's
            // list names the rows as targets (a to-one inverse: in one list at most).
            let (near, far) = join.isInverse ? ("target", "owner") : ("owner", "target")
            let linked = SQLExpression.column(far, table: join.link.name)
            output.append(linked)
            output += join.target.columns.map { .column($0.name, table: join.target.tableName) }
            wide.leftJoins.append(SQLSelect.Join(table: join.link.name, on: .compare(.column(near, table: join.link.name), .equal, id)))
            wide.leftJoins.append(SQLSelect.Join(table: join.target.tableName,
                                                 on: .compare(.column(join.target.columns[0].name, table: join.target.tableName), .equal, linked)))
        }
        wide.output = .columns(output)
        return (wide, joined)
    }

    /// A to-one link `reach` follows from `entity`, read with its rows (``loadRows(_:_:following:)``).
    struct ToOneJoin {
        let slot: LinkSlot
        /// Where its links are read: the link table, from its owners' side or its targets'.
        let source: LinkLookup.Source
        let target: any AnyEntityPersister

        var link: LinkLayout {
            switch source {
            case .stored(let link), .inverse(let link): link
            }
        }

        var isInverse: Bool {
            if case .inverse = source { return true }
            return false
        }
    }

    /// The edges of `reach` from `entity` that ``loadRows(_:_:following:)`` can join to
    /// `select`: to-one links of `entity` (stored with it, or the inverse of a list, which
    /// holds each of its rows once at most), whose link and target tables no other table of
    /// the select has (its columns name their tables, not aliases).
    private func toOneJoins(of entity: any AnyEntityPersister, _ select: SQLSelect, _ reach: ReadReach) -> [ToOneJoin] {
        var tables: Set<String> = [select.table]
        if let join = select.join { tables.insert(join.table) }
        var joins: [ToOneJoin] = []
        for edge in reach.edges where edge.source == entity.table && edge.slot.cardinality == .toOne {
            guard let source = links.source(of: edge.slot, in: edge.source), let target = layout.persisterByTable[edge.target] else { continue }
            let join = ToOneJoin(slot: edge.slot, source: source, target: target)
            guard !tables.contains(join.link.name), !tables.contains(target.tableName) else { continue }
            tables.insert(join.link.name)
            tables.insert(target.tableName)
            joins.append(join)
        }
        return joins
    }

    /// Loads `rows` (read by a select of every column of `entity`) but those read before;
    /// returns the keys of all of them, in order.
    private mutating func loadRows(_ entity: any AnyEntityPersister, _ rows: [[StoredValue]]) throws -> [Int32] {
        var rows = rows
        let union = backend.packUnion
        let keys = try entity.loadKeys(rows.map { $0[0] }, into: &cache.context)
        if let union { rows = union.markSources(rows, keys: keys, of: entity, in: &cache.context) }
        // Taken out while inserting: a copy left in the dictionary would make each insert copy the set.
        var seen = cache.readKeys.removeValue(forKey: entity.table) ?? []
        var new: [[StoredValue]] = []
        for (row, key) in zip(rows, keys) where seen.insert(key).inserted { new.append(row) }
        cache.readKeys[entity.table] = seen
        // A row that no longer decodes is reported naming its entity, as loading a graph does.
        _ = try backend.reading(entity.entityName) { try entity.loadRows(new, into: &cache.context) }
        cache.rows += new.count
        return keys
    }

    /// Reads the rows of `ids` not read yet that pass `filter`, in storage order; returns the
    /// keys of every id in `ids` that has a row passing it. With `reach`, then reads what it
    /// follows from them, the to-one links stored with `entity` joined to the rows' selects
    /// where statements cost round trips (``loadRows(_:_:following:)``); `filter` then names
    /// its columns' table there (``qualifiesColumns``).
    mutating func loadRows(_ entity: any AnyEntityPersister, ids: [StoredValue], filter: SQLExpression = .boolean(true),
                           following reach: ReadReach? = nil) throws -> [Int32] {
        var keys: [Int32] = []
        let table = reach != nil && qualifiesColumns ? entity.tableName : nil
        let idColumn = SQLExpression.column(entity.columns[0].name, table: table)
        // Each id once, first occurrence kept, compared by key.
        var seen = Set<Int32>()
        let unique = zip(ids, try entity.loadKeys(ids, into: &cache.context)).filter { seen.insert($0.1).inserted }
        var start = 0
        while start < unique.count {
            let batch = unique[start..<min(start + Self.batchSize, unique.count)]
            start += Self.batchSize
            let select = SQLSelect(output: .columns(entity.columns.map { .column($0.name, table: table) }), table: entity.tableName,
                                   filter: .all([.oneOf(idColumn, batch.map(\.0)), filter]),
                                   order: [SQLOrderTerm(expression: .storageOrder(table: table), descending: false)])
            keys += try reach.map { try loadRows(entity, select, joining: $0) } ?? loadRows(entity, select)
            // Ids without a row are read too, when no filter left rows out: nothing to read
            // again. A row the filter left out may still be reached through a link later.
            if filter == .boolean(true) { cache.readKeys[entity.table, default: []].formUnion(batch.map(\.1)) }
        }
        if let reach { try follow(reach, from: keys, of: entity.table) }
        return keys
    }

    /// Reads the links of `slot` of the entity `id` of `owner`, whole, and the rows of the
    /// linked entities that pass `filter` and were not read before; returns the keys of the
    /// linked entities the context has rows of, in link order.
    mutating func loadLinked(_ slot: LinkSlot, of id: StoredValue, owner: any AnyEntityPersister, target: any AnyEntityPersister,
                             filter: SQLExpression) throws -> [Int32] {
        let key = try owner.loadKey(id, into: &cache.context)
        if !markSlotsRead(owner.table, slot, [key]).isEmpty { try loadLinks(slot, of: [key], owner: owner, target: target) }
        let linked = context.targetKeys(owner.table, slot, of: key)
        // Rows an earlier query read (cached) are not read again; the others are, whatever
        // filter left them out before.
        let read = cache.readKeys[target.table] ?? []
        let unread = linked.filter { !read.contains($0) }.map { target.idValue($0, in: context) }
        if !unread.isEmpty { _ = try loadRows(target, ids: unread, filter: filter) }
        return linked.filter { target.hasRow($0, in: context) }
    }

    /// Reads what `reach` follows from `owners` (keys of `table` in the context).
    mutating func follow(_ reach: ReadReach, from owners: [Int32], of table: ObjectIdentifier) throws {
        guard !owners.isEmpty else { return }
        for edge in reach.edges where edge.source == table {
            guard let source = layout.persisterByTable[edge.source], let target = layout.persisterByTable[edge.target] else { continue }
            let pending = markSlotsRead(table, edge.slot, owners)
            let linkedRows = try loadLinksAndTheirRows(edge.slot, of: pending, owner: source, target: target, following: edge.onward)
            // Every linked target, read now or before, then what is followed from them.
            var linked: [Int32] = []
            var seen = Set<Int32>()
            for owner in owners {
                for key in context.targetKeys(edge.source, edge.slot, of: owner) where seen.insert(key).inserted { linked.append(key) }
            }
            if let linkedRows {
                // Every target of `pending` is read now: those without a row too.
                _ = try loadJoinedRows(target, linkedRows.rows, width: target.columns.count, linkedRows.joined)
                markTargetsRead(edge.slot, of: pending, in: edge.source, target: edge.target)
            }
            let read = cache.readKeys[edge.target] ?? []
            let unread = linked.filter { !read.contains($0) }.map { target.idValue($0, in: context) }
            if !unread.isEmpty { _ = try loadRows(target, ids: unread) }
            try follow(edge.onward, from: linked, of: edge.target)
        }
    }

    /// Reads the links of `slot` of `owners`, whole and in link order.
    private mutating func loadLinks(_ slot: LinkSlot, of owners: [Int32], owner: any AnyEntityPersister, target: any AnyEntityPersister) throws {
        guard !owners.isEmpty else { return }
        let ids = owners.map { owner.idValue($0, in: context) }
        for batch in Self.batches(ids) {
            guard let (source, select) = links.select(of: slot, in: owner.table, ids: batch) else { return }
            try loadLinks(slot, from: source, pairs: try rows(of: select), owner: owner, target: target)
        }
    }

    /// Reads the links of `slot` of `owners` as ``loadLinks(_:of:owner:target:)`` does and,
    /// in the same round trip to a server, the rows of every entity they link to (a select
    /// of the link table inside the rows' select), with the to-one links `onward` follows
    /// from them joined (``selectReading(_:_:following:)``); returns those rows and the
    /// joins. Nil when it read the links alone: more owners than one batch, or a user store
    /// over packs (whose rows carry their source).
    private mutating func loadLinksAndTheirRows(_ slot: LinkSlot, of owners: [Int32], owner: any AnyEntityPersister,
                                                target: any AnyEntityPersister,
                                                following onward: ReadReach) throws -> (rows: [[StoredValue]], joined: [ToOneJoin])? {
        guard !owners.isEmpty else { return nil }
        let ids = owners.map { owner.idValue($0, in: context) }
        guard ids.count <= Self.batchSize, backend.packUnion == nil, let (source, linkSelect) = links.select(of: slot, in: owner.table, ids: ids) else {
            try loadLinks(slot, of: owners, owner: owner, target: target)
            return nil
        }
        let targets: SQLSelect
        switch source {
        case .stored(let link):
            targets = SQLSelect(output: .columns([.column("target")]), table: link.name, filter: .oneOf(.column("owner"), ids))
        case .inverse(let link):
            targets = SQLSelect(output: .columns([.column("owner")]), table: link.name, filter: .oneOf(.column("target"), ids))
        }
        // Where the links it follows may be joined to it, its columns name their table.
        let table = qualifiesColumns ? target.tableName : nil
        let rowsSelect = SQLSelect(output: .columns(target.columns.map { .column($0.name, table: table) }), table: target.tableName,
                                   filter: .oneOfSelected(.column(target.columns[0].name, table: table), targets),
                                   order: [SQLOrderTerm(expression: .storageOrder(table: table), descending: false)])
        let (select, joined) = selectReading(target, rowsSelect, following: onward)
        statements += 2
        let answers = try backend.rows(ofEach: [linkSelect, select])
        try loadLinks(slot, from: source, pairs: answers[0], owner: owner, target: target)
        return (answers[1], joined)
    }

    /// Loads links read from `source` (each row an owner and a target) into `slot` of their owners.
    private mutating func loadLinks(_ slot: LinkSlot, from source: LinkLookup.Source, pairs: [[StoredValue]], owner: any AnyEntityPersister,
                                    target: any AnyEntityPersister) throws {
        switch source {
        case .stored(let link):
            let ownerKeys = try link.ownerEntity.loadKeys(pairs.map { $0[0] }, into: &cache.context)
            let targetKeys = try link.targetEntity.loadKeys(pairs.map { $0[1] }, into: &cache.context)
            for run in LinkLookup.runs(ownerKeys) { store(link, owner: ownerKeys[run.lowerBound], targets: Array(targetKeys[run])) }
            // A derived inverse is to-one: its single link is the one just stored, so it is whole.
            if let inverse = link.derivedInverse { _ = markSlotsRead(link.target, inverse, targetKeys) }
        case .inverse:
            let ownerKeys = try owner.loadKeys(pairs.map { $0[0] }, into: &cache.context)
            let targetKeys = try target.loadKeys(pairs.map { $0[1] }, into: &cache.context)
            for (key, targetKey) in zip(ownerKeys, targetKeys) where context.linkedKey(owner.table, slot, of: key) < 0 {
                cache.context.loadLink(owner.table, slot, of: key, to: targetKey, targetTable: target.table)
            }
        }
    }

    /// Stores one owner's links of a stored slot, and the inverse to-one links they imply.
    private mutating func store(_ link: LinkLayout, owner key: Int32, targets: [Int32]) {
        if link.isToMany {
            cache.context.loadLinks(link.owner, link.slot, of: key, to: targets, targetTable: link.target)
        } else {
            cache.context.loadLink(link.owner, link.slot, of: key, to: targets[0], targetTable: link.target)
        }
        if let inverse = link.derivedInverse {
            for target in targets { cache.context.loadLink(link.target, inverse, of: target, to: key, targetTable: link.owner) }
        }
    }
}
