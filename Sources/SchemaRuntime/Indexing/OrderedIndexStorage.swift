/// The ordered index: entries `(key, entity)` kept sorted by key (with a direction per field)
/// and then by entity key, so entities with equal keys stay in context order.
///
/// Structure: a two-level B-tree. Entries live in sorted leaf chunks of at most
/// `maxChunk` entries; `chunks` is ordered, so the last entry of each chunk bounds it.
///
/// Complexity, for n entries and chunk size B (here 256 to 512):
/// - insert / remove: O(log n + B) (binary searches, then a shift within one chunk; a
///   split or an emptied chunk also shifts the n / B chunk directory);
/// - lower/upper bound: O(log n);
/// - range scan of k entries: O(log n + k); full scan in either direction: O(n);
/// - counting a range: O(log n + n / B) (chunk sizes, not entries).
@usableFromInline
struct OrderedIndexStorage: Sendable {
    @usableFromInline
    struct Entry: Sendable, Equatable {
        @usableFromInline var key: IndexKey
        @usableFromInline var entity: Int32

        @usableFromInline
        init(key: IndexKey, entity: Int32) {
            self.key = key
            self.entity = entity
        }
    }

    /// Per field: true when the field sorts descending.
    let descending: [Bool]
    private(set) var chunks: [[Entry]] = []
    private(set) var count = 0

    static let maxChunk = 512

    @usableFromInline
    init(descending: [Bool]) {
        self.descending = descending
    }

    // MARK: Ordering

    /// Compares keys field by field in storage order (descending fields reversed).
    func compareKeys(_ a: IndexKey, _ b: IndexKey) -> Int {
        for index in 0..<a.count {
            let x = a[index], y = b[index]
            if x == y { continue }
            let ascending = x < y
            return (ascending != descending[index]) ? -1 : 1
        }
        return 0
    }

    func precedes(_ a: Entry, _ b: Entry) -> Bool {
        let order = compareKeys(a.key, b.key)
        return order != 0 ? order < 0 : a.entity < b.entity
    }

    // MARK: Search

    /// The first position, in (chunk, offset) form, whose entry is not `before`, assuming
    /// `before` holds for a prefix of the storage order. O(log n).
    func partition(_ before: (Entry) -> Bool) -> (chunk: Int, offset: Int) {
        var low = 0, high = chunks.count
        while low < high {
            let mid = (low + high) / 2
            if before(chunks[mid][chunks[mid].count - 1]) { low = mid + 1 } else { high = mid }
        }
        guard low < chunks.count else { return (chunks.count, 0) }
        let chunk = chunks[low]
        var lo = 0, hi = chunk.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if before(chunk[mid]) { lo = mid + 1 } else { hi = mid }
        }
        return (low, lo)
    }

    // MARK: Mutation

    @usableFromInline
    mutating func insert(_ entry: Entry) {
        count += 1
        if chunks.isEmpty {
            chunks.append([entry])
            return
        }
        var position = partition { precedes($0, entry) }
        if position.chunk == chunks.count {
            position = (chunks.count - 1, chunks[chunks.count - 1].count)
        }
        chunks[position.chunk].insert(entry, at: position.offset)
        if chunks[position.chunk].count > Self.maxChunk {
            let upper = Array(chunks[position.chunk][(Self.maxChunk / 2)...])
            chunks[position.chunk].removeLast(upper.count)
            chunks.insert(upper, at: position.chunk + 1)
        }
    }

    /// Removes the entry; returns false if it was not there.
    @usableFromInline @discardableResult
    mutating func remove(_ entry: Entry) -> Bool {
        let position = partition { precedes($0, entry) }
        guard position.chunk < chunks.count, chunks[position.chunk][position.offset] == entry else { return false }
        chunks[position.chunk].remove(at: position.offset)
        if chunks[position.chunk].isEmpty { chunks.remove(at: position.chunk) }
        count -= 1
        return true
    }

    // MARK: Scans

    /// Entity keys from `start` (inclusive) to `end` (exclusive) positions, in storage order.
    func entities(from start: (chunk: Int, offset: Int), to end: (chunk: Int, offset: Int)) -> [Int32] {
        var result: [Int32] = []
        var chunk = start.chunk, offset = start.offset
        while chunk < end.chunk || (chunk == end.chunk && offset < end.offset) {
            guard chunk < chunks.count else { break }
            let limit = chunk == end.chunk ? end.offset : chunks[chunk].count
            for index in offset..<limit { result.append(chunks[chunk][index].entity) }
            chunk += 1
            offset = 0
        }
        return result
    }

    /// Visits entity keys in storage order, or in reverse key order with ties still in context
    /// order (so a reversed scan is a stable descending sort), until `body` returns false.
    /// O(visited entries).
    func visit(reversed: Bool, _ body: (Int32) -> Bool) {
        if !reversed {
            for chunk in chunks { for entry in chunk where !body(entry.entity) { return } }
            return
        }
        visitRuns(from: nil, reversed: true) { _, run in run.allSatisfy(body) }
    }

    /// Visits runs of entries with equal keys (each run's entity keys in storage order),
    /// starting at the run whose key is `start` or, if none is, the first run after where it
    /// would be in visiting order (nil: at the first run); forwards in storage order or
    /// backwards (`reversed`), until `body` returns false. O(log n + visited entries).
    func visitRuns(from start: IndexKey?, reversed: Bool, _ body: (IndexKey, [Int32]) -> Bool) {
        var run: [Int32] = []
        var runKey: IndexKey?
        func flush(_ next: IndexKey?) -> Bool {
            defer { run.removeAll(keepingCapacity: true); runKey = next }
            guard let key = runKey, !run.isEmpty else { return true }
            return body(key, reversed ? run.reversed() : run)
        }
        if !reversed {
            var (chunk, offset) = start.map { start in partition { compareKeys($0.key, start) < 0 } } ?? (0, 0)
            while chunk < chunks.count {
                for entry in chunks[chunk][offset...] {
                    if entry.key != runKey, !flush(entry.key) { return }
                    run.append(entry.entity)
                }
                chunk += 1
                offset = 0
            }
        } else {
            let end = start.map { start in partition { compareKeys($0.key, start) <= 0 } } ?? (chunks.count, 0)
            var (chunk, offset) = end
            while true {
                if offset == 0 {
                    guard chunk > 0 else { break }
                    chunk -= 1
                    offset = chunks[chunk].count
                }
                offset -= 1
                let entry = chunks[chunk][offset]
                if entry.key != runKey, !flush(entry.key) { return }
                run.append(entry.entity)
            }
        }
        _ = flush(nil)
    }

    /// Every entity key, as `visit` orders them. O(n).
    func allEntities(reversed: Bool) -> [Int32] {
        var result: [Int32] = []
        result.reserveCapacity(count)
        visit(reversed: reversed) { result.append($0); return true }
        return result
    }

    /// Bounds of an index range: equal to `equal` on the leading fields, then within
    /// (`lower`, `upper`) on the next one.
    struct Range {
        var equal: [IndexValue]
        var lower: (IndexValue, inclusive: Bool)?
        var upper: (IndexValue, inclusive: Bool)?
    }

    /// Entities in `range`, in storage order. O(log n + k) for k results.
    func range(equal: [IndexValue], lower: (IndexValue, inclusive: Bool)?, upper: (IndexValue, inclusive: Bool)?) -> [Int32] {
        let (start, end) = positions(of: Range(equal: equal, lower: lower, upper: upper))
        return entities(from: start, to: end)
    }

    /// The number of entities in `range`, without reading them: O(log n + n / B), the second
    /// term being the chunks the range spans (counted by their sizes, not their entries).
    func count(in range: Range) -> Int {
        let (start, end) = positions(of: range)
        guard start.chunk < end.chunk else { return Swift.max(0, end.offset - start.offset) }
        var total = chunks[start.chunk].count - start.offset
        for chunk in (start.chunk + 1)..<Swift.min(end.chunk, chunks.count) { total += chunks[chunk].count }
        if end.chunk < chunks.count { total += end.offset }
        return total
    }

    /// The first position inside `range` and the first after it. O(log n).
    private func positions(of range: Range) -> (start: (chunk: Int, offset: Int), end: (chunk: Int, offset: Int)) {
        let prefix = range.equal.count
        let rangeField = prefix
        let hasRange = (range.lower != nil || range.upper != nil) && rangeField < descending.count
        // -1: before the range in storage order, 0: inside, 1: after.
        func classify(_ entry: Entry) -> Int {
            for index in 0..<prefix {
                let x = entry.key[index], y = range.equal[index]
                if x == y { continue }
                return ((x < y) != descending[index]) ? -1 : 1
            }
            guard hasRange else { return 0 }
            let value = entry.key[rangeField]
            let belowLower = range.lower.map { value < $0.0 || (!$0.inclusive && value == $0.0) } ?? false
            let aboveUpper = range.upper.map { value > $0.0 || (!$0.inclusive && value == $0.0) } ?? false
            if descending[rangeField] {
                return aboveUpper ? -1 : (belowLower ? 1 : 0)
            }
            return belowLower ? -1 : (aboveUpper ? 1 : 0)
        }
        return (partition { classify($0) < 0 }, partition { classify($0) <= 0 })
    }
}
