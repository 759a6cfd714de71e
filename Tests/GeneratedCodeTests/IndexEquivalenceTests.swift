import DeterministicRandom
import SchemaRuntime
import Testing

/// Random data, random filters, sorts and limits: an entity with indexes, its twin without,
/// and a plain Swift array filter must give the same results in the same order.
@Suite struct IndexEquivalenceTests {
    struct Row { var id: Int, a: Int, b: String, c: Double?, level: Level, text: String }

    /// ASCII and Unicode words: combining marks, precomposed letters, final sigma, dotted İ.
    static let words = ["alpha", "beta", "gamma", "delta", "Epsilon", "zeta", "cafe\u{301}", "café", "ΣΟΦΙΑΣ", "σοφίας", "İz", "e\u{301}x", "a\u{2260}b", "a=\u{338}b"]

    /// The double compared or stored for a random value: nil, NaN or a number.
    static func double(_ value: Int) -> Double? { value % 4 == 0 ? nil : (value % 9 == 8 ? .nan : Double(value % 7) / 2) }

    indirect enum Spec {
        case compare(field: Int, op: Int, value: Int)
        case text(op: Int, query: String, caseSensitive: Bool)
        case and([Spec]), or([Spec]), not(Spec)
    }

    /// The key paths of one of the twins, written concretely so the planner can match them.
    struct Paths<E> {
        let a: KeyPath<E, Int>, b: KeyPath<E, String>, c: KeyPath<E, Double?>, level: KeyPath<E, Level>, text: KeyPath<E, String>
    }

    static func predicate<E>(_ spec: Spec, _ p: Paths<E>) -> Predicate<E> {
        switch spec {
        case let .compare(field, op, value):
            switch field {
            case 0: return comparison(p.a, op, value)
            case 1: return comparison(p.b, op, "b\(value % 5)")
            case 2: return comparison(p.c, op, double(value))
            default: return op == 0 ? p.level == Level(rawValue: value % 3 + 1)! : p.level != Level(rawValue: value % 3 + 1)!
            }
        case let .text(op, query, caseSensitive):
            switch op {
            case 0: return .string(p.text, matches: query)
            case 1: return .string(p.text, contains: query, caseSensitive: caseSensitive)
            case 2: return .string(p.text, hasPrefix: query, caseSensitive: caseSensitive)
            case 3: return .string(p.text, hasSuffix: query, caseSensitive: caseSensitive)
            default: return .string(p.text, notContains: query, caseSensitive: caseSensitive)
            }
        case .and(let specs): return specs.dropFirst().reduce(predicate(specs[0], p)) { $0 && predicate($1, p) }
        case .or(let specs): return specs.dropFirst().reduce(predicate(specs[0], p)) { $0 || predicate($1, p) }
        case .not(let inner): return !predicate(inner, p)
        }
    }

    static func comparison<E, V: IndexKeyConvertible & Comparable>(_ path: KeyPath<E, V>, _ op: Int, _ value: V) -> Predicate<E> {
        switch op {
        case 0: path == value
        case 1: path != value
        case 2: path < value
        case 3: path <= value
        case 4: path > value
        default: path >= value
        }
    }

    static func comparison<E, V: IndexKeyConvertible & Comparable>(_ path: KeyPath<E, V?>, _ op: Int, _ value: V?) -> Predicate<E> {
        switch op {
        case 0: path == value
        case 1: path != value
        case 2: path < value
        case 3: path <= value
        case 4: path > value
        default: path >= value
        }
    }

    /// The reference semantics, on plain values (nil orders first).
    static func evaluate(_ spec: Spec, _ row: Row) -> Bool {
        /// nil first, then numbers, then NaN (equal to itself): the documented total order.
        func order(_ x: Double?, _ y: Double?) -> Int {
            switch (x, y) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?) where x.isNaN || y.isNaN: return x.isNaN && y.isNaN ? 0 : (x.isNaN ? 1 : -1)
            case let (x?, y?): return x < y ? -1 : (x == y ? 0 : 1)
            }
        }
        func order<V: Comparable>(_ x: V?, _ y: V?) -> Int {
            switch (x, y) {
            case (nil, nil): 0
            case (nil, _): -1
            case (_, nil): 1
            case let (x?, y?): x < y ? -1 : (x == y ? 0 : 1)
            }
        }
        func check(_ result: Int, _ op: Int) -> Bool {
            [result == 0, result != 0, result < 0, result <= 0, result > 0, result >= 0][op]
        }
        switch spec {
        case let .compare(field, op, value):
            switch field {
            case 0: return check(order(row.a, value), op)
            case 1: return check(order(row.b, "b\(value % 5)"), op)
            case 2: return check(order(row.c, double(value)), op)
            default: return (row.level == Level(rawValue: value % 3 + 1)!) == (op == 0)
            }
        case let .text(op, query, caseSensitive):
            // Case-insensitive means folded scalar by scalar (TextTokenizer.folded), as documented.
            let text = caseSensitive ? row.text : TextTokenizer.folded(row.text), needle = caseSensitive ? query : TextTokenizer.folded(query)
            switch op {
            case 0:
                // A query without words matches nothing (issue #8).
                let words = TextTokenizer.tokens(query)
                return !words.isEmpty && Set(TextTokenizer.tokens(row.text)).isSuperset(of: words)
            case 1: return needle.isEmpty || text.contains(needle)
            case 2: return text.hasPrefix(needle)
            case 3: return text.hasSuffix(needle)
            default: return !(needle.isEmpty || text.contains(needle))
            }
        case .and(let specs): return specs.allSatisfy { evaluate($0, row) }
        case .or(let specs): return specs.contains { evaluate($0, row) }
        case .not(let inner): return !evaluate(inner, row)
        }
    }

    /// Unsorted queries with a full-text `matches` at the top, alone or in an `&&`, come in relevance order.
    static func isRanked(_ spec: Spec) -> Bool {
        switch spec {
        case .text(op: 0, _, _): true
        case .and(let specs): specs.contains(where: isRanked)
        default: false
        }
    }

    static func randomSpec(_ random: inout SplitMix64, depth: Int = 0) -> Spec {
        let choice = Int.random(in: 0..<(depth > 1 ? 2 : 5), using: &random)
        switch choice {
        case 0:
            return .compare(field: Int.random(in: 0..<4, using: &random), op: Int.random(in: 0..<6, using: &random), value: Int.random(in: 0..<40, using: &random))
        case 1:
            var query = (0..<Int.random(in: 1...3, using: &random)).map { _ in words.randomElement(using: &random)! }.joined(separator: " ")
            // Cut by scalars, so needles can start or end inside a grapheme cluster.
            if Bool.random(using: &random) {
                var scalars = String.UnicodeScalarView()
                scalars.append(contentsOf: query.unicodeScalars.dropFirst(Int.random(in: 0...2, using: &random)).dropLast(Int.random(in: 0...1, using: &random)))
                query = String(scalars)
            }
            return .text(op: Int.random(in: 0..<5, using: &random), query: query, caseSensitive: Bool.random(using: &random))
        case 2, 3:
            let children = (0..<Int.random(in: 2...3, using: &random)).map { _ in randomSpec(&random, depth: depth + 1) }
            return choice == 2 ? .and(children) : .or(children)
        default:
            return .not(randomSpec(&random, depth: depth + 1))
        }
    }

    /// Sorts the twins and the reference the same way; the cases cover index-backed sorts
    /// (exact match, reversed, compound) and plain ones.
    static let sorts = 9

    static func sort<E>(_ list: QueryList<E>, _ kind: Int, _ p: Paths<E>, desc: (aDesc: KeyPath<E, Descending<Int>>, cDesc: KeyPath<E, Descending<Double?>>)) -> QueryList<E> {
        switch kind {
        case 0: list
        case 1: list.sorted(by: p.a)
        case 2: list.sorted(by: desc.aDesc)
        case 3: list.sorted(by: p.b, desc.aDesc)
        case 4: list.sorted(by: p.b, p.a)
        case 5: list.sorted(by: p.c)
        case 6: list.sorted(by: desc.cDesc)
        case 7: list.sorted(by: p.level, p.b)
        default: list.sorted(by: p.b)
        }
    }

    static func sortReference(_ rows: [Row], _ kind: Int) -> [Row] {
        func key(_ row: Row) -> [IndexValue] {
            switch kind {
            case 1, 2: [row.a.indexValue]
            case 3, 4: [row.b.indexValue, row.a.indexValue]
            case 5, 6: [row.c.indexValue]
            case 7: [row.level.indexValue, row.b.indexValue]
            default: [row.b.indexValue]
            }
        }
        let descending: [Bool] = switch kind {
        case 2, 6: [true]
        case 3: [false, true]
        case 4, 7: [false, false]
        default: [false]
        }
        guard kind != 0 else { return rows }
        return rows.enumerated().sorted { x, y in
            let kx = key(x.element), ky = key(y.element)
            for index in kx.indices where kx[index] != ky[index] { return (kx[index] < ky[index]) != descending[index] }
            return x.offset < y.offset
        }.map(\.element)
    }

    /// 12 seeds × 150 random queries, each over the whole table and over an id list.
    @Test(arguments: 0..<12)
    func indexedAndScannedQueriesAgreeWithAnArrayFilter(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var context = Context()
        var rows: [Int: Row] = [:]
        // Random saves, updates and deletes, so the indexes are exercised under change.
        for step in 0..<400 {
            let id = Int.random(in: 0..<220, using: &random)
            if step > 200, Int.random(in: 0..<5, using: &random) == 0 {
                try Indexed(id: id, a: 0, b: "", level: .low, text: "").delete(from: &context)
                try Plain(id: id, a: 0, b: "", level: .low, text: "").delete(from: &context)
                rows[id] = nil
                continue
            }
            let row = Row(id: id, a: Int.random(in: 0..<40, using: &random), b: "b\(Int.random(in: 0..<5, using: &random))",
                          c: Self.double(Int.random(in: 0..<40, using: &random)),
                          level: Level.allCases.randomElement(using: &random)!,
                          text: (0..<Int.random(in: 1...6, using: &random)).map { _ in Self.words.randomElement(using: &random)! }.joined(separator: " "))
            // The unique (b, a, level) index throws on collision; both twins and the reference skip those rows.
            do {
                try Indexed(id: id, a: row.a, b: row.b, c: row.c, level: row.level, text: row.text).save(to: &context)
            } catch is UniqueConstraintViolation {
                continue
            }
            try Plain(id: id, a: row.a, b: row.b, c: row.c, level: row.level, text: row.text).save(to: &context)
            rows[id] = row
        }
        let ordered = Indexed.query(in: context).resolve().map { rows[$0.id]! }
        let indexedPaths = Paths<Indexed>(a: \.a, b: \.b, c: \.c, level: \.level, text: \.text)
        let plainPaths = Paths<Plain>(a: \.a, b: \.b, c: \.c, level: \.level, text: \.text)
        var usedIndex = 0
        for _ in 0..<150 {
            let spec = Self.randomSpec(&random)
            let sortKind = Int.random(in: 0..<Self.sorts, using: &random)
            let limit = Bool.random(using: &random) ? [Int.random(in: 0..<20, using: &random), .max].randomElement(using: &random)! : nil
            let offset = limit == nil ? 0 : [Int.random(in: 0..<5, using: &random), .max].randomElement(using: &random)!
            func refine<E>(_ list: QueryList<E>, _ p: Paths<E>, _ desc: (KeyPath<E, Descending<Int>>, KeyPath<E, Descending<Double?>>)) -> QueryList<E> {
                let sorted = Self.sort(list.filter(Self.predicate(spec, p)), sortKind, p, desc: (desc.0, desc.1))
                return limit.map { sorted.limit($0, offset: offset) } ?? sorted
            }
            let indexedQuery = refine(Indexed.query(in: context), indexedPaths, (\Indexed.a.desc, \Indexed.c.desc))
            let indexed = indexedQuery.resolve().map(\.id)
            let plain = refine(Plain.query(in: context), plainPaths, (\Plain.a.desc, \Plain.c.desc)).resolve().map(\.id)
            #expect(indexed == plain, "\(spec) sort \(sortKind): \(indexedQuery.explain())")
            #expect(indexedQuery.count() == indexed.count)

            // The same over an id list (shuffled, with repeats): source order, each id once.
            let listed = (0..<30).map { _ in Int.random(in: 0..<220, using: &random) }
            let listedIndexed = refine(Indexed.query(listed, in: context), indexedPaths, (\Indexed.a.desc, \Indexed.c.desc)).resolve().map(\.id)
            let listedPlain = refine(Plain.query(listed, in: context), plainPaths, (\Plain.a.desc, \Plain.c.desc)).resolve().map(\.id)
            #expect(listedIndexed == listedPlain, "\(spec) sort \(sortKind) over \(listed)")
            var seen = Set<Int>()
            let listedRows = listed.filter { rows[$0] != nil && seen.insert($0).inserted }.map { rows[$0]! }
            if !Self.isRanked(spec) || sortKind != 0 {
                var expectedListed = Self.sortReference(listedRows.filter { Self.evaluate(spec, $0) }, sortKind)
                if let limit { expectedListed = Array(expectedListed.dropFirst(offset).prefix(limit)) }
                #expect(listedIndexed == expectedListed.map(\.id), "\(spec) sort \(sortKind) over \(listed)")
            }
            if indexedQuery.explain().usesIndex { usedIndex += 1 }

            var expected = Self.sortReference(ordered.filter { Self.evaluate(spec, $0) }, sortKind)
            if let limit { expected = Array(expected.dropFirst(offset).prefix(limit)) }
            if Self.isRanked(spec), sortKind == 0 {
                // Relevance order is checked between the twins above; here, the same entities.
                let all = Self.sortReference(ordered.filter { Self.evaluate(spec, $0) }, 0)
                #expect(limit != nil || Set(indexed) == Set(all.map(\.id)))
            } else {
                #expect(indexed == expected.map(\.id), "\(spec) sort \(sortKind)")
            }
        }
        #expect(usedIndex > 30, "the random queries should exercise the indexes")
    }
}
