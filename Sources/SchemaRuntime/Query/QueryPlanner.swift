/// Runs the filter, sort and limit of a list query, using indexes where they help.
///
/// Rules, in order:
/// 1. Candidates: for a query over all entities, each condition that an index can answer
///    (equality via unique, hash or ordered indexes, ranges and compound prefixes via
///    ordered indexes, `matches`/`contains`/`hasPrefix`/`hasSuffix` via full-text indexes,
///    `||` when every branch can) yields a candidate set. The smallest is used; the second
///    smallest is intersected with it when it is selective (under a quarter of all rows).
///    Without a usable index, every row is a candidate.
/// 2. Every candidate is checked against the whole predicate, so an index only ever narrows
///    the work: results are the same with and without indexes.
/// 3. Order: the requested sort (through an ordered index on exactly the sort fields, in
///    either direction, when there is one; otherwise a stable sort), else BM25 relevance for
///    full-text `matches`, else the source order (context order, or the order of given ids).
/// 4. `limit(_:offset:)` stops early when rows come from an index in order.
struct QueryPlanner<Entity: EntityModelProtocol> {
    let context: Context
    let table: EntityTable<Entity>?
    var plan = QueryPlan()

    init(context: Context) {
        self.context = context
        self.table = context.tableIfPresent(Entity.self)
    }

    private var liveCount: Int { table?.rowCount ?? 0 }

    private func name(_ descriptor: IndexDescriptor<Entity>) -> String { "\(Entity.entityName).\(descriptor.name)" }

    // MARK: Candidates

    typealias Node = Predicate<Entity>.Node

    /// Candidate keys for `node` from indexes, or nil when no index can answer it.
    mutating func candidates(_ node: Node) -> [Int32]? {
        guard let table else { return nil }
        switch node {
        case .comparison(let comparison):
            // One comparison answered by an index on its field is answered exactly.
            guard let lookup = lookup(for: [comparison], table: table) else { return nil }
            plan.steps.append(lookup.step)
            plan.isExact = lookup.answersAll
            return lookup.keys(in: table)
        case .and(let nodes):
            let comparisons = Self.comparisons(in: nodes)
            var options: [(keys: [Int32], step: String)] = []
            var saved = plan
            // Every condition a comparison one index answers whole: its entities are the result.
            if comparisons.count == nodes.count, let lookup = lookup(for: comparisons, table: table), lookup.answersAll {
                plan.steps.append(lookup.step)
                plan.isExact = true
                return lookup.keys(in: table)
            }
            if let keys = candidates(for: comparisons, table: table) { options.append((keys, plan.steps.last ?? "")) }
            for node in nodes {
                if case .comparison = node { continue }
                plan = saved
                if let keys = candidates(node) { options.append((keys, plan.steps.last ?? "")) }
            }
            plan = saved
            // Single comparisons too: the compound match above takes the best index for all of them.
            for comparison in comparisons {
                saved = plan
                if let keys = candidates(for: [comparison], table: table) { options.append((keys, plan.steps.last ?? "")) }
                plan = saved
            }
            guard !options.isEmpty else { return nil }
            options.sort { $0.keys.count < $1.keys.count }
            var keys = options[0].keys
            plan.steps.append(options[0].step)
            if options.count > 1, options[1].step != options[0].step, options[1].keys.count * 4 < liveCount {
                let other = Set(options[1].keys)
                keys = keys.filter(other.contains)
                plan.steps.append("intersect " + options[1].step)
            }
            return keys
        case .or(let nodes):
            var union = Set<Int32>()
            var steps: [String] = []
            for node in nodes {
                let saved = plan
                guard let keys = candidates(node) else { plan = saved; return nil }
                steps.append(plan.steps.last ?? "")
                plan = saved
                union.formUnion(keys)
            }
            plan.steps.append("union(" + steps.joined(separator: ", ") + ")")
            return Array(union)
        case .text(let condition):
            return textCandidates(condition, table: table)
        case .updated(let times):
            // Exact: the save times are the index's keys. Untracked entities never match.
            plan.isExact = true
            plan.steps.append("index range \(Entity.entityName).updatedAt")
            guard table.tracksUpdatedAt else { return [] }
            let range = Self.saveTimeRange(times)
            return table.updatedAtIndex.range(equal: [], lower: range.lower, upper: range.upper)
        case .related(let condition):
            guard let candidates = condition.candidates else { return nil }
            let (keys, related) = candidates(context)
            // Exact: the related query checked its own rows, the inverse links are symmetric.
            plan.isExact = true
            plan.steps.append("related \(condition.name) [\(related.description)] then inverse links")
            return keys
        case .not, .custom:
            return nil
        }
    }

    /// The best index answer for a conjunction of comparisons (a compound prefix where
    /// possible), read; its step is added to the plan.
    private mutating func candidates(for comparisons: [Predicate<Entity>.Comparison], table: EntityTable<Entity>) -> [Int32]? {
        guard let lookup = lookup(for: comparisons, table: table) else { return nil }
        plan.steps.append(lookup.step)
        return lookup.keys(in: table)
    }

    /// The usable index lookup for a conjunction of comparisons that finds the fewest
    /// entities, counted without reading them; nil when no index applies.
    func lookup(for comparisons: [Predicate<Entity>.Comparison], table: EntityTable<Entity>) -> IndexLookup? {
        var best: (lookup: IndexLookup, count: Int)?
        for (position, descriptor) in table.descriptors.enumerated() {
            guard let lookup = lookup(descriptor, slot: table.indexSlots[position], for: comparisons) else { continue }
            let count = lookup.count(in: table)
            if best == nil || count < best!.count { best = (lookup, count) }
        }
        return best?.lookup
    }

    /// How one index answers the comparisons: leading fields fixed by equality, then a range
    /// on the next field of an ordered index. Nil when it answers none of them.
    private func lookup(_ descriptor: IndexDescriptor<Entity>, slot: Int, for comparisons: [Predicate<Entity>.Comparison]) -> IndexLookup? {
        let fields = descriptor.fields.map(\.keyPath)
        guard !fields.isEmpty else { return nil }
        var used = Set<Int>()
        var equal: [IndexValue] = []
        for field in fields {
            guard let match = comparisons.indices.first(where: { comparisons[$0].keyPath == field && comparisons[$0].op == .equal }) else { break }
            used.insert(match)
            equal.append(comparisons[match].value)
        }
        func made(_ access: IndexLookup.Access, _ kind: String) -> IndexLookup {
            IndexLookup(access: access, step: "index \(kind) \(name(descriptor))", answersAll: used.count == comparisons.count)
        }
        switch descriptor.kind {
        // A unique index never stores keys containing nil (nil never collides), so it
        // cannot answer `== nil`; an ordered or hash index, or the scan, does.
        case .unique where equal.count == fields.count && !IndexKey(equal).containsNull:
            return made(.unique(slot: slot, key: IndexKey(equal)), "lookup")
        case .hash where equal.count == fields.count:
            return made(.hash(slot: slot, key: IndexKey(equal)), "lookup")
        case .ordered:
            var range = OrderedIndexStorage.Range(equal: equal)
            if equal.count < fields.count {
                for (index, comparison) in comparisons.enumerated() where comparison.keyPath == fields[equal.count] {
                    switch comparison.op {
                    case .greater: range.lower = tighterLower(range.lower, (comparison.value, false))
                    case .greaterOrEqual: range.lower = tighterLower(range.lower, (comparison.value, true))
                    case .less: range.upper = tighterUpper(range.upper, (comparison.value, false))
                    case .lessOrEqual: range.upper = tighterUpper(range.upper, (comparison.value, true))
                    default: continue
                    }
                    used.insert(index)
                }
            }
            guard !equal.isEmpty || range.lower != nil || range.upper != nil else { return nil }
            return made(.ordered(slot: slot, range: range), range.lower == nil && range.upper == nil ? "equality" : "range")
        default:
            return nil
        }
    }

    /// The number of entities satisfying `node` when one index answers all of it exactly,
    /// counted without reading entities or rows; nil otherwise.
    func exactCount(_ node: Node) -> Int? {
        guard let table else { return 0 }
        let comparisons: [Predicate<Entity>.Comparison]
        switch node {
        case .comparison(let comparison): comparisons = [comparison]
        case .and(let nodes):
            comparisons = Self.comparisons(in: nodes)
            guard comparisons.count == nodes.count else { return nil }
        case .updated(let times):
            guard table.tracksUpdatedAt else { return 0 }
            return table.updatedAtIndex.count(in: Self.saveTimeRange(times))
        default: return nil
        }
        guard let lookup = lookup(for: comparisons, table: table), lookup.answersAll else { return nil }
        return lookup.count(in: table)
    }

    /// The comparisons among the conditions of a conjunction.
    private static func comparisons(in nodes: [Node]) -> [Predicate<Entity>.Comparison] {
        nodes.compactMap { node in
            if case .comparison(let comparison) = node { return comparison }
            return nil
        }
    }

    /// The updatedAt index range of save times within `times` (an infinite end is open).
    static func saveTimeRange(_ times: ClosedRange<Double>) -> OrderedIndexStorage.Range {
        OrderedIndexStorage.Range(equal: [], lower: times.lowerBound.isFinite ? (.double(times.lowerBound), true) : nil,
                                  upper: times.upperBound.isFinite ? (.double(times.upperBound), true) : nil)
    }

    private func tighterLower(_ a: (IndexValue, inclusive: Bool)?, _ b: (IndexValue, inclusive: Bool)) -> (IndexValue, inclusive: Bool) {
        guard let a else { return b }
        if a.0 != b.0 { return a.0 > b.0 ? a : b }
        return (a.0, a.inclusive && b.inclusive)
    }

    private func tighterUpper(_ a: (IndexValue, inclusive: Bool)?, _ b: (IndexValue, inclusive: Bool)) -> (IndexValue, inclusive: Bool) {
        guard let a else { return b }
        if a.0 != b.0 { return a.0 < b.0 ? a : b }
        return (a.0, a.inclusive && b.inclusive)
    }

    /// A full-text index over (at least) the condition's fields narrows to the documents that
    /// contain every complete word of the query. Partial words at an unanchored edge of a
    /// `contains` / `hasPrefix` / `hasSuffix` needle cannot be looked up and are left to the check.
    private mutating func textCandidates(_ condition: Predicate<Entity>.TextCondition, table: EntityTable<Entity>) -> [Int32]? {
        guard let (position, descriptor) = fullTextIndex(covering: condition.keyPaths) else { return nil }
        let words: [String]
        switch condition.operation {
        case .matches:
            words = TextTokenizer.tokens(condition.query)
            if words.isEmpty {
                plan.steps.append("full-text query without words: matches nothing")
                return []
            }
        case .contains: words = Self.completeWords(condition.query, anchoredStart: false, anchoredEnd: false)
        case .hasPrefix: words = Self.completeWords(condition.query, anchoredStart: true, anchoredEnd: false)
        case .hasSuffix: words = Self.completeWords(condition.query, anchoredStart: false, anchoredEnd: true)
        case .regex, .fuzzy: return nil
        }
        guard !words.isEmpty else { return nil }
        plan.steps.append("full-text index \(name(descriptor))")
        // `matches` over exactly the index's fields is what the index answers: the same
        // tokenizer, and word order does not matter. No row needs checking again.
        if case .matches = condition.operation, Set(descriptor.textFields.map(\.keyPath)) == Set(condition.keyPaths) {
            plan.isExact = true
        }
        return table.fullText[table.indexSlots[position]].entities(containingAll: words)
    }

    func fullTextIndex(covering keyPaths: [AnyKeyPath], exactly: Bool = false) -> (Int, IndexDescriptor<Entity>)? {
        for (position, descriptor) in (table?.descriptors ?? []).enumerated() {
            guard case .fullText = descriptor.kind else { continue }
            let fields = descriptor.textFields.map(\.keyPath)
            let covers = keyPaths.allSatisfy { path in fields.contains { $0 == path } }
            if covers && (!exactly || fields.count == keyPaths.count && zip(fields, keyPaths).allSatisfy { $0 == $1 }) {
                return (position, descriptor)
            }
        }
        return nil
    }

    /// Words of `query` that must appear whole in any text containing it (as folded text).
    ///
    /// The tokenizer decides each scalar from itself and the scalar before it, so a word of the
    /// needle with a separator on each side is a token of the text too. A word touching an
    /// unanchored end of the needle may continue in the text, and so may a combining mark
    /// (`"\u{301}bar"` is inside `"cafe\u{301}bar"`), so such words are left to the check.
    static func completeWords(_ query: String, anchoredStart: Bool, anchoredEnd: Bool) -> [String] {
        let folded = TextTokenizer.folded(query)
        var words = TextTokenizer.tokens(folded)
        func touches(_ scalar: Unicode.Scalar?) -> Bool {
            scalar.map { TextTokenizer.isWordScalar($0) || TextTokenizer.isMark($0) } ?? false
        }
        if !anchoredStart, touches(folded.unicodeScalars.first), !words.isEmpty { words.removeFirst() }
        if !anchoredEnd, touches(folded.unicodeScalars.last), !words.isEmpty { words.removeLast() }
        return words
    }

    // MARK: Ordering

    /// An ordered index on exactly the sort fields, and whether to scan it in reverse.
    func sortIndex(_ keys: [SortKey<Entity>]) -> (Int, IndexDescriptor<Entity>, reversed: Bool)? {
        for (position, descriptor) in (table?.descriptors ?? []).enumerated() where descriptor.isOrdered && descriptor.fields.count == keys.count {
            var sameDirection = true, oppositeDirection = true
            for (field, key) in zip(descriptor.fields, keys) {
                let matchesField = key.descending ? key.keyPath == field.descendingKeyPath.keyPath : key.keyPath == field.keyPath
                guard matchesField else { sameDirection = false; oppositeDirection = false; break }
                if key.descending == field.descending { oppositeDirection = false } else { sameDirection = false }
            }
            if sameDirection { return (position, descriptor, false) }
            if oppositeDirection { return (position, descriptor, true) }
        }
        return nil
    }
}
