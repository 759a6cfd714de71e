/// Keyset pagination: pages that stay correct while entities are inserted or deleted
/// between them.
///
/// ```swift
/// let query = Message.query(in: context).sorted(by: \.timestamp.desc)
/// var page = query.page(size: 20)
/// while let next = page.next { page = query.page(size: 20, after: next) }
/// ```
///
/// A paged query orders by its sort keys, then by id (ascending), so every entity has one
/// place; that order replaces relevance order and source order. A query sorted by
/// `.updatedAt` pages by save time, then id. With an ordered index on
/// the sort fields and no filter an index cannot answer, a page starts at the cursor in the
/// index: O(log n + page size) at any depth. Otherwise the matching entities are sorted:
/// O(m log m) for m matches.
extension QueryList {
    /// A page of at most `size` entities after `cursor` (from the start without one), and
    /// the cursor of the next page. A negative size reads as 0. A cursor is a position
    /// after an entity: from another query (another sort), it is that entity's position in
    /// this one.
    public func page(size: Int, after cursor: QueryCursor<Entity>? = nil, in context: Context? = nil) -> QueryPage<Entity> {
        let size = Swift.max(size, 0)
        let (base, context) = running(in: context ?? self.context ?? Context())
        var query = base
        query.keyset = .init(after: cursor.map { cursor in { _ in cursor } })
        // One more than the page tells whether another page follows.
        query.limit = size == Int.max ? size : size + 1
        query.offset = 0
        var keys = query.execute(in: context).keys
        let hasMore = keys.count > size
        if hasMore { keys.removeLast() }
        let entities = keys.compactMap { context.resolve(Entity.self, key: $0, nesting: nesting) }
        let next = hasMore ? keys.last.flatMap { key in
            context.row(Entity.self, key).map { QueryCursor($0, savedAt: context.savedAt(Entity.self, key: key)) }
        } : nil
        return QueryPage(entities: entities, next: next)
    }

    /// The entities after `entity` in the query's keyset order (sort keys, then id): with
    /// `limit(_:)`, the page after one ending in `entity`. `entity` need not be stored any
    /// more: its sort values and id are the position.
    public func after(_ entity: Entity) -> QueryList {
        var copy = self
        copy.keyset = .init(after: { context in
            QueryCursor(entity, savedAt: context.key(of: entity.id, Entity.self).flatMap { context.savedAt(Entity.self, key: $0) })
        })
        return copy
    }

    /// The entities after `cursor` in the query's keyset order (sort keys, then id).
    public func after(_ cursor: QueryCursor<Entity>) -> QueryList {
        var copy = self
        copy.keyset = .init(after: { _ in cursor })
        return copy
    }

    /// Keyset order and the position to start after, for a paged query.
    struct Keyset {
        /// Where to start: after an entity, whose position is computed from the sort keys
        /// when the query runs (so `after(_:)` and `sorted(by:)` may come in any order); nil
        /// for the first page.
        let after: ((Context) -> QueryCursor<Entity>)?
    }

    /// The keyset position of a cursor: its entity's sort values (its save time, for a query
    /// sorted by `.updatedAt`) and id.
    private func position(of cursor: QueryCursor<Entity>) -> (values: [IndexValue], id: IndexValue) {
        guard saveTimeOrder != nil else { return (sortKeys.map { $0.value(cursor.entity) }, cursor.id) }
        return ([Self.saveTimeValue(cursor.savedAt)], cursor.id)
    }

    /// A save time as a keyset value: none sorts first, as `sorted(by: .updatedAt)` has it.
    private static func saveTimeValue(_ time: Double?) -> IndexValue {
        time.map { IndexValue.double($0) } ?? .null
    }

    /// The keyset directions: each sort key's, or the save time's.
    private var keysetDescending: [Bool] {
        saveTimeOrder.map { [$0] } ?? sortKeys.map(\.descending)
    }

    /// The keys of a paged query, in keyset order, after the cursor, limited.
    func executeKeyset(_ keyset: Keyset, in context: Context, base: [Int32]?) -> (keys: [Int32], plan: QueryPlan) {
        let cursor = keyset.after.map { position(of: $0(context)) }
        let needed = limit.map { $0 > Int.max - offset ? Int.max : $0 + offset } ?? Int.max
        var planner = QueryPlanner<Entity>(context: context)
        var keys: [Int32] = []
        if case .all = source, base == nil, distinctKey == nil, !sortKeys.isEmpty,
           let (position, descriptor, reversed) = planner.sortIndex(sortKeys), let table = planner.table,
           predicate.map({ planner.candidates($0.node) == nil }) ?? true {
            // Walk the sort index from the cursor; within a run of equal values, by id.
            planner.plan = QueryPlan(steps: ["seek index \(Entity.entityName).\(descriptor.name)\(reversed ? " reversed" : "")"])
            let admits = sourceFilter(in: context)
            let savedAt = (predicate?.node.readsSaveTimes ?? false) ? table.savedAt : { _ in nil }
            let start = cursor.map { IndexKey($0.values) }
            let visit: (IndexKey, [Int32]) -> Bool = { runKey, run in
                var members = run.filter { key in
                    guard admits?(key) ?? true, let predicate else { return admits?(key) ?? true }
                    guard let row = context.row(Entity.self, key) else { return false }
                    return predicate.evaluate(row, in: context, key: key, savedAt: savedAt(key))
                }.map { ($0, QueryCursor<Entity>.idValue(context.id(Entity.self, $0))) }
                members.sort { $0.1 < $1.1 }
                if let cursor, runKey == start { members.removeAll { !(cursor.id < $0.1) } }
                for (key, _) in members {
                    keys.append(key)
                    if keys.count >= needed { return false }
                }
                return true
            }
            table.ordered[table.indexSlots[position]].visitRuns(from: start, reversed: reversed, visit)
        } else {
            // Every match after the cursor, in (sort values, id) order: sorted once, or, when
            // only the first few are wanted, selected through a heap (``PartialOrder``).
            var all = self
            all.keyset = nil
            all.limit = nil
            all.offset = 0
            all.distinctKey = nil
            let found = all.execute(in: context, base: base, ordered: false)
            planner.plan = found.plan
            planner.plan.steps.append("sort by keyset")
            let table = context.tableIfPresent(Entity.self)
            let descending = keysetDescending
            // Each match's values in one flat array (`width` a match), read once.
            let width = descending.count
            var after: [Int32] = [], values: [IndexValue] = [], ids: [IndexValue] = []
            for key in found.keys {
                guard let row = context.row(Entity.self, key) else { continue }
                let rowValues = saveTimeOrder == nil ? sortKeys.map { $0.value(row) } : [Self.saveTimeValue(table?.savedAt(key))]
                let id = QueryCursor<Entity>.idValue(row.id)
                if let cursor, !Self.keysetPrecedes((cursor.values, cursor.id), (rowValues, id), descending) { continue }
                after.append(key)
                values.append(contentsOf: rowValues)
                ids.append(id)
            }
            func precedes(_ a: Int, _ b: Int) -> Bool {
                for column in 0..<width {
                    let x = values[a * width + column], y = values[b * width + column]
                    if x != y { return (x < y) != descending[column] }
                }
                return ids[a] < ids[b]
            }
            let wanted = distinctKey == nil ? needed : .max
            let order = wanted < after.count ? PartialOrder.first(wanted, of: after.count, by: precedes) : after.indices.sorted(by: precedes)
            keys = order.map { after[$0] }
        }
        // The index walk runs without `distinct(on:)`, so this de-duplicates the sorted matches only.
        keys = distinctAndLimited(keys, plan: &planner.plan, in: context)
        return (keys, planner.plan)
    }

    /// Whether position `a` comes before `b`: by the sort values in each key's direction,
    /// then by id ascending.
    static func keysetPrecedes(_ a: ([IndexValue], IndexValue), _ b: ([IndexValue], IndexValue), _ descending: [Bool]) -> Bool {
        for (index, descending) in descending.enumerated() where a.0[index] != b.0[index] {
            return (a.0[index] < b.0[index]) != descending
        }
        return a.1 < b.1
    }
}
