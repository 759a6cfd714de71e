/// The ordered index: entries `(key, entity)` kept sorted by key (with a direction per field)
/// and then by entity key, so entities with equal keys stay in context order.
///
/// Structure: a three-level B-tree of arrays. Entries live in sorted leaves (chunks) of at
/// most ``maxChunk`` entries; chunks are in groups of at most ``maxGroup``; `groups` is in
/// order, so the last entry of each chunk bounds it, and the last chunk of each group bounds
/// the group. A store's write changes a copy of the index that its last snapshot shares
/// (copy on write): it copies the directory of groups, one group's chunk directory and one
/// chunk, never all the chunks' references (at a million entries, 2,000 to 4,000 of them,
/// each retained and later released, were a quarter of a one-message write).
///
/// Chunks hold at most 128 entries: a write inserting into a chunk its snapshot shares copies
/// it (each entry retained, and released with the old graph), which with 512 was a tenth of a
/// single write's client time on PostgreSQL; bulk inserts and range scans were no slower.
///
/// Complexity, for n entries, chunk size B (here 64 to 128) and group size G (32 to 64):
/// - insert / remove: O(log n + B + G + n / (B·G)) (binary searches, then a shift within one
///   chunk and, on a split or an emptied chunk, within one group's chunks and the groups),
///   also when the storage is shared with a copy (copying those three arrays);
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

    /// A place in the storage order: the entry at `offset` of chunk `chunk` of group
    /// `group`; the end is `(groups.count, 0, 0)`.
    struct Position: Comparable {
        var group: Int
        var chunk: Int
        var offset: Int

        static func < (a: Position, b: Position) -> Bool {
            (a.group, a.chunk, a.offset) < (b.group, b.chunk, b.offset)
        }
    }

    /// Per field: true when the field sorts descending.
    let descending: [Bool]
    /// The chunks, in groups; no chunk and no group is empty.
    private(set) var groups: [[[Entry]]] = []
    private(set) var count = 0
    /// The most entries a chunk holds; a fuller one splits into halves.
    let maxChunk: Int
    /// The most chunks a group holds; a fuller one splits into halves.
    let maxGroup: Int

    /// `maxChunk` and `maxGroup` at least 2 (tests use small ones, to split often).
    @usableFromInline
    init(descending: [Bool], maxChunk: Int = 128, maxGroup: Int = 64) {
        precondition(maxChunk >= 2 && maxGroup >= 2)
        self.descending = descending
        self.maxChunk = maxChunk
        self.maxGroup = maxGroup
    }

    /// The end of the storage order.
    var endPosition: Position { Position(group: groups.count, chunk: 0, offset: 0) }

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

    /// The first position whose entry is not `before`, assuming `before` holds for a prefix
    /// of the storage order. O(log n). Through buffer pointers: subscripting the nested
    /// arrays retained and released each group and chunk it looked at (inserting 100,000
    /// rows took 14% longer than with one level of chunks).
    @inline(__always)
    func partition(_ before: (Entry) -> Bool) -> Position {
        groups.withUnsafeBufferPointer { groups in
            var low = 0, high = groups.count
            while low < high {
                let mid = (low + high) / 2
                let isBefore = groups[mid].withUnsafeBufferPointer { before($0[$0.count - 1][$0[$0.count - 1].count - 1]) }
                if isBefore { low = mid + 1 } else { high = mid }
            }
            guard low < groups.count else { return Position(group: groups.count, chunk: 0, offset: 0) }
            let group = low
            return groups[group].withUnsafeBufferPointer { chunks in
                var low = 0, high = chunks.count
                while low < high {
                    let mid = (low + high) / 2
                    if before(chunks[mid][chunks[mid].count - 1]) { low = mid + 1 } else { high = mid }
                }
                // The group's last chunk's last entry is not `before`: `low` is a chunk of it.
                let chunk = low
                return chunks[chunk].withUnsafeBufferPointer { entries in
                    var low = 0, high = entries.count
                    while low < high {
                        let mid = (low + high) / 2
                        if before(entries[mid]) { low = mid + 1 } else { high = mid }
                    }
                    return Position(group: group, chunk: chunk, offset: low)
                }
            }
        }
    }

    // MARK: Mutation

    @usableFromInline
    mutating func insert(_ entry: Entry) {
        count += 1
        guard !groups.isEmpty else {
            groups = [[[entry]]]
            return
        }
        var position = partition { precedes($0, entry) }
        if position.group == groups.count {
            // After every entry: at the end of the last chunk.
            let group = groups.count - 1, chunk = groups[group].count - 1
            position = Position(group: group, chunk: chunk, offset: groups[group][chunk].count)
        }
        let (group, chunk) = (position.group, position.chunk)
        groups[group][chunk].insert(entry, at: position.offset)
        guard groups[group][chunk].count > maxChunk else { return }
        let upper = Array(groups[group][chunk][(maxChunk / 2)...])
        groups[group][chunk].removeLast(upper.count)
        groups[group].insert(upper, at: chunk + 1)
        guard groups[group].count > maxGroup else { return }
        let upperGroup = Array(groups[group][(maxGroup / 2)...])
        groups[group].removeLast(upperGroup.count)
        groups.insert(upperGroup, at: group + 1)
    }

    /// Removes the entry; returns false if it was not there.
    @usableFromInline @discardableResult
    mutating func remove(_ entry: Entry) -> Bool {
        let position = partition { precedes($0, entry) }
        let (group, chunk) = (position.group, position.chunk)
        guard group < groups.count, groups[group][chunk][position.offset] == entry else { return false }
        groups[group][chunk].remove(at: position.offset)
        if groups[group][chunk].isEmpty {
            groups[group].remove(at: chunk)
            if groups[group].isEmpty { groups.remove(at: group) }
        }
        count -= 1
        return true
    }

    /// The position after `position`'s chunk: the first entry of the next chunk.
    private func nextChunk(after position: Position) -> Position {
        position.chunk + 1 < groups[position.group].count
            ? Position(group: position.group, chunk: position.chunk + 1, offset: 0)
            : Position(group: position.group + 1, chunk: 0, offset: 0)
    }

    // MARK: Scans

    /// Calls `body` with the entries from `start` (inclusive) to `end` (exclusive), one
    /// chunk's part at a time, in storage order. O(chunks spanned).
    private func forEachPart(from start: Position, to end: Position, _ body: (ArraySlice<Entry>) -> Void) {
        var position = start
        while position < end, position.group < groups.count {
            let chunk = groups[position.group][position.chunk]
            let limit = position.group == end.group && position.chunk == end.chunk ? end.offset : chunk.count
            body(chunk[position.offset..<limit])
            position = nextChunk(after: position)
        }
    }

    /// Entity keys from `start` (inclusive) to `end` (exclusive) positions, in storage order.
    func entities(from start: Position, to end: Position) -> [Int32] {
        var result: [Int32] = []
        forEachPart(from: start, to: end) { part in
            for entry in part { result.append(entry.entity) }
        }
        return result
    }

    /// Visits entity keys in storage order, or in reverse key order with ties still in context
    /// order (so a reversed scan is a stable descending sort), until `body` returns false.
    /// O(visited entries).
    func visit(reversed: Bool, _ body: (Int32) -> Bool) {
        if !reversed {
            for group in groups { for chunk in group { for entry in chunk where !body(entry.entity) { return } } }
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
            var position = start.map { start in partition { compareKeys($0.key, start) < 0 } } ?? Position(group: 0, chunk: 0, offset: 0)
            while position.group < groups.count {
                for entry in groups[position.group][position.chunk][position.offset...] {
                    if entry.key != runKey, !flush(entry.key) { return }
                    run.append(entry.entity)
                }
                position = nextChunk(after: position)
            }
        } else {
            var position = start.map { start in partition { compareKeys($0.key, start) <= 0 } } ?? endPosition
            while true {
                if position.offset == 0 {
                    if position.chunk == 0 {
                        guard position.group > 0 else { break }
                        position.group -= 1
                        position.chunk = groups[position.group].count
                    }
                    position.chunk -= 1
                    position.offset = groups[position.group][position.chunk].count
                }
                position.offset -= 1
                let entry = groups[position.group][position.chunk][position.offset]
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
        var total = 0
        forEachPart(from: start, to: end) { total += $0.count }
        return total
    }

    /// The first position inside `range` and the first after it. O(log n).
    private func positions(of range: Range) -> (start: Position, end: Position) {
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
