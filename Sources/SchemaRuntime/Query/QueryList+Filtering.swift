import Foundation

/// Filtering, sorting and limits of list queries (README "How to use Filter Queries" and
/// "How to use Sort Queries"). Indexes declared in the schema are used automatically; see
/// ``QueryPlanner`` and `explain()`.
extension QueryList {
    /// Keeps the entities satisfying `predicate` (and any earlier filter).
    public func filter(_ predicate: Predicate<Entity>) -> QueryList {
        var copy = self
        copy.predicate = self.predicate.map { $0 && predicate } ?? predicate
        return copy
    }

    /// Keeps the entities for which `isIncluded` returns true (and any earlier filter): a
    /// condition the predicate language cannot say, in Swift. Not index-assisted: the
    /// closure runs on every entity the other filters leave (``EntityPredicate/custom(_:)``).
    ///
    /// ```swift
    /// Recipe.query(in: context).filter(\.minutes < 30).filter { $0.title.count > 10 }
    /// ```
    public func filter(_ isIncluded: @escaping (Entity) -> Bool) -> QueryList {
        filter(.custom(isIncluded))
    }

    /// Same as `filter(_:)`.
    public func and(_ predicate: Predicate<Entity>) -> QueryList { filter(predicate) }

    /// Entities matched by this query and by `other`, each once, in source order (context
    /// order, or link order inside a nested query). Each side keeps its own filters, sort
    /// and limit: `recent.and(byAda)` of two limited queries is what both lists hold.
    public func and(_ other: QueryList) -> QueryList {
        combined(with: other, source: Source.intersection) { mine, theirs in
            switch (mine, theirs) {
            case let (mine?, theirs?): mine && theirs
            case (nil, let theirs): theirs
            case (let mine, nil): mine
            }
        }
    }

    /// Entities matched by this query and by `other` (made without a context, it runs in
    /// this query's): `.and(.filter(\.level <= 4))`.
    public func and(_ other: ContextFreeQueryList<Entity>) -> QueryList { and(other.query) }

    /// Keeps the entities satisfying the current filter or `predicate`.
    public func or(_ predicate: Predicate<Entity>) -> QueryList {
        var copy = self
        copy.predicate = self.predicate.map { $0 || predicate }
        return copy
    }

    /// Entities matched by this query or by `other`, each once, in source order: context
    /// order, or link order inside a nested query. Each side keeps its own filters,
    /// `updated(since:)`, sort and limit; inside a nested query both sides run over the
    /// related entities.
    public func or(_ other: QueryList) -> QueryList {
        combined(with: other, source: Source.union) { mine, theirs in
            // Without a filter, one side matches everything.
            guard let mine, let theirs else { return nil }
            return mine || theirs
        }
    }

    /// Entities matched by this query or by `other` (made without a context, it runs in
    /// this query's): `.or(.filter(\.age > 30))`.
    public func or(_ other: ContextFreeQueryList<Entity>) -> QueryList { or(other.query) }

    /// This query and `other` combined: one filter (`predicates` merges them) when both run
    /// over every entity unshaped, so the planner can still use indexes; else a query over
    /// both results (`source`), each keeping its own filter, sort and limit.
    private func combined(with other: QueryList, source: ([QueryList]) -> Source,
                          predicates: (Predicate<Entity>?, Predicate<Entity>?) -> Predicate<Entity>?) -> QueryList {
        if case .all = self.source, case .all = other.source, sources == other.sources, !shapesResult, !other.shapesResult {
            var copy = self
            copy.predicate = predicates(predicate, other.predicate)
            return copy
        }
        var left = self, right = other
        left.nesting = Nesting()
        right.nesting = Nesting()
        var both = QueryList(context: context ?? other.context, source: source([left, right]))
        both.nesting = nesting
        return both
    }

    /// Whether the query orders, limits or de-duplicates its result (so two queries cannot
    /// share one filter, and a nested list must run the query).
    var shapesResult: Bool { !sortKeys.isEmpty || saveTimeOrder != nil || limit != nil || offset > 0 || distinctKey != nil || keyset != nil }

    /// Keeps the entities from `sources` only (``EntitySource``): `.from(.user)` for the
    /// user's own entities, `.from(.pack(id))` for a pack's (edited ones included). Several
    /// calls intersect. O(1) per candidate.
    public func from(_ sources: EntitySource...) -> QueryList {
        from(Set(sources))
    }

    /// Keeps the entities from `sources` only; see ``from(_:)-swift.method``.
    public func from(_ sources: Set<EntitySource>) -> QueryList {
        var copy = self
        copy.sources = self.sources.map { $0.intersection(sources) } ?? sources
        return copy
    }

    /// Whether `key` passes the source restriction, or nil without one.
    func sourceFilter(in context: Context) -> ((Int32) -> Bool)? {
        guard let sources else { return nil }
        let numbers = context.sourceNumbers(sources)
        let table = ObjectIdentifier(Entity.self)
        return { numbers.contains(context.sourceNumber(ofKey: $0, in: table)) }
    }

    /// Sorts by one key; `\.age.desc` sorts descending. Stable: ties keep their order.
    /// Optional keys sort `nil` first (last when descending).
    public func sorted<A: IndexKeyConvertible>(by a: KeyPath<Entity, A>) -> QueryList {
        sorted([SortKey(a)])
    }

    /// Sorts by two keys, the second breaking ties of the first.
    public func sorted<A: IndexKeyConvertible, B: IndexKeyConvertible>(by a: KeyPath<Entity, A>, _ b: KeyPath<Entity, B>) -> QueryList {
        sorted([SortKey(a), SortKey(b)])
    }

    /// Sorts by three keys.
    public func sorted<A: IndexKeyConvertible, B: IndexKeyConvertible, C: IndexKeyConvertible>(
        by a: KeyPath<Entity, A>, _ b: KeyPath<Entity, B>, _ c: KeyPath<Entity, C>
    ) -> QueryList {
        sorted([SortKey(a), SortKey(b), SortKey(c)])
    }

    /// Sorts by four keys.
    public func sorted<A: IndexKeyConvertible, B: IndexKeyConvertible, C: IndexKeyConvertible, D: IndexKeyConvertible>(
        by a: KeyPath<Entity, A>, _ b: KeyPath<Entity, B>, _ c: KeyPath<Entity, C>, _ d: KeyPath<Entity, D>
    ) -> QueryList {
        sorted([SortKey(a), SortKey(b), SortKey(c), SortKey(d)])
    }

    private func sorted(_ keys: [SortKey<Entity>]) -> QueryList {
        var copy = self
        copy.sortKeys = keys
        copy.saveTimeOrder = nil
        return copy
    }

    /// Sorts by when each entity was last saved (`metadata updatedAt` in the schema):
    /// `.sorted(by: .updatedAt)`, newest first with `.updatedAt.desc`. Entities without a
    /// save time (untracked types) sort first (last when descending); ties keep their order.
    public func sorted(by metadata: MetadataSort) -> QueryList {
        var copy = self
        copy.sortKeys = []
        copy.saveTimeOrder = metadata.descending
        return copy
    }

    /// Keeps the first entity, in the query's order, of each distinct combination of the
    /// fields (SQL's `DISTINCT ON`): `Message.query(in: context).sorted(by: \.timestamp.desc).distinct(on: \.authorName)`
    /// is each author's latest message. Applied after the order, before `limit(_:offset:)`.
    public func distinct<each Value: IndexKeyConvertible>(on field: repeat KeyPath<Entity, each Value>) -> QueryList {
        let fields = (repeat each field)
        var copy = self
        copy.distinctKey = { row in Self.indexKey(of: row, repeat each fields) }
        return copy
    }

    /// Entities saved at or after `date`, for entities whose schema declares
    /// `metadata updatedAt` (others never match). Answered from the updatedAt index.
    public func updated(since date: Date) -> QueryList {
        filter(.updated(since: date))
    }

    /// Entities saved within `dates` (both ends included), for entities whose schema
    /// declares `metadata updatedAt` (others never match). Answered from the updatedAt index.
    public func updated(within dates: ClosedRange<Date>) -> QueryList {
        filter(.updated(within: dates))
    }

    /// At most `limit` entities, after skipping `offset`.
    ///
    /// A negative `limit` reads as 0 (nothing) and a negative `offset` as 0 (from the start):
    /// page sizes and positions often come from outside (a request, a UI), and a query never
    /// stops the program over one.
    public func limit(_ limit: Int, offset: Int = 0) -> QueryList {
        var copy = self
        copy.limit = Swift.max(limit, 0)
        copy.offset = Swift.max(offset, 0)
        return copy
    }

    /// A query for the first entity in this query's order, found without resolving the
    /// others: `.first().resolve()`, or `.first().resolve(in: context)` for a query made
    /// without a context. It keeps this query's nested relations.
    public func first() -> Query<Entity> {
        let list = limit(1)
        var query = Query(context: context, nesting: nesting, key: { list.execute(in: $0).keys.first }, reach: { list.reach(in: $0) })
        query.listOrigin = (list, false)
        return query
    }

    /// A query for the last entity in this query's order (its limit and offset applied).
    public func last() -> Query<Entity> {
        let list = self
        var query = Query(context: context, nesting: nesting, key: { list.execute(in: $0).keys.last }, reach: { list.reach(in: $0) })
        query.listOrigin = (list, true)
        return query
    }

    /// How the query runs: the indexes it uses, and the filtering, ordering and limiting after.
    public func explain() -> QueryPlan {
        let (list, context) = running(in: context ?? Context())
        return list.execute(in: context).plan
    }

    // MARK: Execution

    /// The keys the query resolves to, in order, and how they were found. `base`, inside a
    /// nested query, is the related entities' keys, which `.all` then stands for. Without
    /// `ordered`, the matches come in no particular order (the caller orders them).
    @usableFromInline
    func execute(in context: Context, base: [Int32]? = nil, limitOverride: Int?? = .none, ordered: Bool = true) -> (keys: [Int32], plan: QueryPlan) {
        if let keyset { return executeKeyset(keyset, in: context, base: base) }
        var planner = QueryPlanner<Entity>(context: context)
        let limit = limitOverride ?? self.limit
        // How many leading results are needed, saturating: `limit(.max, offset: 1)` is valid.
        // With `distinct(on:)`, how many are needed is known only after de-duplicating.
        let needed = distinctKey != nil ? Int.max : limit.map { $0 > Int.max - offset ? Int.max : $0 + offset } ?? Int.max
        var keys: [Int32]
        var fromIndexOrder = false
        let admits = sourceFilter(in: context)

        // 1. Candidates.
        switch (source, base) {
        case (.all, nil):
            if let predicate, let candidates = planner.candidates(predicate.node) {
                keys = candidates.sorted()
            } else if predicate == nil, !sortKeys.isEmpty, let (position, descriptor, reversed) = planner.sortIndex(sortKeys),
                      let table = planner.table {
                // No filter: walk the sort index and stop as soon as the limit is reached.
                planner.plan.steps.append("scan index \(Entity.entityName).\(descriptor.name)\(reversed ? " reversed" : "")")
                keys = []
                table.ordered[table.indexSlots[position]].visit(reversed: reversed) { key in
                    if admits?(key) ?? true { keys.append(key) }
                    return keys.count < needed
                }
                fromIndexOrder = true
            } else {
                planner.plan.steps.append("scan")
                keys = context.liveKeys(Entity.self)
            }
        case (.all, let base?):
            planner.plan.steps.append("lookup \(base.count) related")
            keys = base.filter { context.hasRow(Entity.self, $0) }
        case (.union(let branches), _):
            var found = Set<Int32>()
            for branch in branches { found.formUnion(branch.execute(in: context, base: base).keys) }
            keys = base.map { $0.filter(found.contains) } ?? found.sorted()
            planner.plan.steps.append("union of \(branches.count) queries")
        case (.intersection(let branches), _):
            var found = Set(branches[0].execute(in: context, base: base).keys)
            for branch in branches.dropFirst() { found.formIntersection(branch.execute(in: context, base: base).keys) }
            keys = base.map { $0.filter(found.contains) } ?? found.sorted()
            planner.plan.steps.append("intersection of \(branches.count) queries")
        default:
            keys = self.keys(in: context).filter { context.hasRow(Entity.self, $0) }
            planner.plan.steps.append("lookup \(keys.count) ids")
        }

        if let admits, !fromIndexOrder {
            planner.plan.steps.append("keep sources \(sources!.map(String.init(describing:)).sorted().joined(separator: ", "))")
            keys = keys.filter(admits)
        }

        // 2. Filter: every candidate is checked against the whole predicate (unless a reader
        // answered the query: its keys are the result, in order).
        if isAnswered { planner.plan.steps.append("answered by the reader") }
        if let predicate, !planner.plan.isExact, !isAnswered {
            planner.plan.steps.append("filter")
            // Unordered results with a limit stop at the first matches (`first()`, `limit(_:)`).
            let keepsOrder = sortKeys.isEmpty && saveTimeOrder == nil && Self.rankingCondition(predicate.node) == nil
            let enough = keepsOrder ? needed : Int.max
            // Save times are read only for predicates that ask for them.
            let table = predicate.node.readsSaveTimes ? planner.table : nil
            var matches: [Int32] = []
            for key in keys {
                guard let row = context.row(Entity.self, key), predicate.evaluate(row, in: context, key: key, savedAt: table?.savedAt(key)) else { continue }
                matches.append(key)
                if matches.count >= enough { break }
            }
            keys = matches
        }

        // 3. Order. An index gives ties in context order, which is the source order only when
        // the keys are ascending; otherwise the stable sort keeps the source order.
        if isAnswered || !ordered {
            // Already in order, or the caller orders them.
        } else if !sortKeys.isEmpty, !fromIndexOrder {
            if let (position, descriptor, reversed) = planner.sortIndex(sortKeys), let table = planner.table,
               keys.count * 8 > table.rowCount, zip(keys, keys.dropFirst()).allSatisfy({ $0 < $1 }) {
                planner.plan.steps.append("sort by index \(Entity.entityName).\(descriptor.name)\(reversed ? " reversed" : "")")
                let wanted = Set(keys)
                var ordered: [Int32] = []
                ordered.reserveCapacity(keys.count)
                table.ordered[table.indexSlots[position]].visit(reversed: reversed) { key in
                    if wanted.contains(key) { ordered.append(key) }
                    return ordered.count < needed
                }
                keys = ordered
            } else {
                planner.plan.steps.append("sort")
                keys = Self.stableSort(keys, by: sortKeys, in: context, first: needed)
            }
        } else if let descending = saveTimeOrder {
            planner.plan.steps.append("sort by updatedAt")
            let table = planner.table
            let times = keys.map { table?.savedAt($0) }
            keys = keys.indices.sorted { a, b in
                let (x, y) = descending ? (times[b], times[a]) : (times[a], times[b])
                if x != y { return x.map { x in y.map { x < $0 } ?? false } ?? true }
                return a < b
            }.map { keys[$0] }
        } else if sortKeys.isEmpty, let condition = predicate.flatMap({ Self.rankingCondition($0.node) }) {
            planner.plan.steps.append("rank by relevance")
            keys = rank(keys, by: condition, planner: planner, in: context)
        }

        // 4. Distinct, 5. limit.
        keys = distinctAndLimited(keys, plan: &planner.plan, in: context)
        return (keys, planner.plan)
    }

    /// `keys` kept to the first of each `distinct(on:)` combination, then cut to the limit and
    /// offset, each step noted in `plan`.
    func distinctAndLimited(_ keys: [Int32], plan: inout QueryPlan, in context: Context) -> [Int32] {
        var keys = keys
        if let distinctKey {
            plan.steps.append("distinct")
            var seen = Set<IndexKey>()
            keys = keys.filter { key in context.row(Entity.self, key).map { seen.insert(distinctKey($0)).inserted } ?? false }
        }
        if offset > 0 || limit != nil {
            plan.steps.append("limit")
            let start = Swift.min(offset, keys.count)
            let end = limit.map { start + Swift.min($0, keys.count - start) } ?? keys.count
            keys = Array(keys[start..<end])
        }
        return keys
    }

    /// Sorts by the keys' values, equal values in their input order, and returns the first
    /// `first` (all by default). O(n log n) comparisons; O(n log first) when fewer are
    /// wanted (the newest 20 of a chat's messages): they are selected through a heap of
    /// `first` positions, then sorted.
    ///
    /// Each entity's values are read once; the comparisons then touch only concrete types
    /// (`IndexValue`, `Bool`): a comparator that went through `sortKeys`, generic over the
    /// entity, asked the runtime for type metadata at every comparison, most of a sort's time
    /// (100k messages by text, no index: 937-954 to 179-181 ms, `schemagen-bench 1000 100`).
    static func stableSort(_ keys: [Int32], by sortKeys: [SortKey<Entity>], in context: Context, first: Int = .max) -> [Int32] {
        var sorted: [Int32] = []
        var values: [IndexValue] = []
        sorted.reserveCapacity(keys.count)
        values.reserveCapacity(keys.count * sortKeys.count)
        for key in keys {
            guard let entity = context.row(Entity.self, key) else { continue }
            sorted.append(key)
            for sortKey in sortKeys { values.append(sortKey.value(entity)) }
        }
        let descending = sortKeys.map(\.descending)
        let width = descending.count
        // Positions in order, ties in input order: a strict order, so the first `first` of
        // it are the same however they are found.
        func precedes(_ a: Int, _ b: Int) -> Bool {
            for column in 0..<width {
                let x = values[a * width + column], y = values[b * width + column]
                if x != y { return (x < y) != descending[column] }
            }
            return a < b
        }
        guard first < sorted.count else { return sorted.indices.sorted(by: precedes).map { sorted[$0] } }
        return PartialOrder.first(first, of: sorted.count, by: precedes).map { sorted[$0] }
    }

    /// The full-text `matches` condition that orders unsorted results, if the predicate is one
    /// (alone or as part of an `&&`).
    static func rankingCondition(_ node: Predicate<Entity>.Node) -> Predicate<Entity>.TextCondition? {
        switch node {
        case .text(let condition) where condition.operation == .matches: return condition
        case .and(let nodes): return nodes.lazy.compactMap(rankingCondition).first
        default: return nil
        }
    }

    /// Orders by BM25 score, highest first, ties in input order. Statistics come from a
    /// full-text index on exactly the condition's fields, from the whole table's statistics a
    /// store reading on demand gave the context, or are computed the same way from every
    /// stored entity, so all give the same order.
    private func rank(_ keys: [Int32], by condition: Predicate<Entity>.TextCondition, planner: QueryPlanner<Entity>, in context: Context) -> [Int32] {
        let words = TextTokenizer.tokens(condition.query)
        let scores: [Double]
        if let (position, _) = planner.fullTextIndex(covering: condition.keyPaths, exactly: true), let table = planner.table {
            scores = table.fullText[table.indexSlots[position]].scores(of: keys, tokens: words)
        } else if let statistics = context.fullTextStatistics[ObjectIdentifier(Entity.self)] {
            // Part of a store's table, with the whole table's statistics (a store reading on demand).
            scores = statistics.scores(of: keys.map { condition.joinedText(context.row(Entity.self, $0)!) }, tokens: words)
        } else {
            var statistics = FullTextIndexStorage()
            for key in context.liveKeys(Entity.self) { statistics.insert(condition.joinedText(context.row(Entity.self, key)!), key) }
            scores = statistics.scores(of: keys, tokens: words)
        }
        // Positions sorted by score, ties in input order; no dictionary in the comparator.
        let order = keys.indices.sorted { scores[$0] != scores[$1] ? scores[$0] > scores[$1] : $0 < $1 }
        return order.map { keys[$0] }
    }
}

extension QueryList.Source {
    var isAll: Bool {
        if case .all = self { return true }
        return false
    }
}

extension QueryList {
    /// Every entity of this type in `context` satisfying `predicate`:
    /// `.or(.filter(\.age > 30, in: context))`.
    public static func filter(_ predicate: Predicate<Entity>, in context: Context) -> QueryList {
        QueryList(context: context, source: .all).filter(predicate)
    }
}

extension EntityModelProtocol {
    /// Every entity of this type in `context` satisfying `predicate`: `User.filter(\.age > 18, in: context)`.
    public static func filter(_ predicate: Predicate<Self>, in context: Context) -> QueryList<Self> {
        QueryList(context: context, source: .all).filter(predicate)
    }

    /// Every entity of this type satisfying `predicate`, with no context: resolved with
    /// `resolve(in:)`: `User.filter(\.age > 18).sorted(by: \.name).resolve(in: context)`.
    public static func filter(_ predicate: Predicate<Self>) -> ContextFreeQueryList<Self> {
        .filter(predicate)
    }
}
