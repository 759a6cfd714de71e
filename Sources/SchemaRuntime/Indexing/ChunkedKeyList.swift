/// A sorted set of entity keys, each with a value, stored in chunks so that removing a key
/// from a list of a million costs the same as from a list of a thousand.
///
/// Used for full-text posting lists (value: the token's count in the entity) and hash index
/// buckets (value: `Void`, which takes no memory). A flat sorted array shifts every later
/// key on each removal; here keys live in sorted chunks of at most ``maxChunk``, the last key
/// of each chunk bounding it. A list of up to ``maxChunk`` keys is one array (one allocation,
/// like the flat array it replaces): the first chunk is stored inline, the others in `tail`.
///
/// Complexity, for n keys and chunk size B = ``maxChunk``:
/// - `insert`, `remove`: O(log n + B), plus O(n / B) to shift the chunk directory when a
///   chunk splits, empties or merges, which a chunk does at most once per B / 4 of its
///   insertions or removals; appending a key larger than every other (new entities get new,
///   larger keys) is O(1) amortized;
/// - `value(of:)`, `contains`: O(log n);
/// - iteration in key order: O(n).
struct ChunkedKeyList<Value: Sendable>: Sendable {
    typealias Element = (key: Int32, value: Value)
    typealias Chunk = ContiguousArray<Element>

    /// The first chunk; empty only when the whole list is.
    private var head: Chunk = []
    /// The other chunks, in key order.
    private var tail: [Chunk] = []
    private(set) var count = 0

    /// Large enough that the directory stays small, small enough that the shift inside a
    /// chunk is a few hundred bytes.
    static var maxChunk: Int { 256 }

    init() {}

    var isEmpty: Bool { count == 0 }

    /// The number of chunks.
    var chunkCount: Int { head.isEmpty ? 0 : 1 + tail.count }

    private subscript(chunk index: Int) -> Chunk {
        get { index == 0 ? head : tail[index - 1] }
        _modify {
            if index == 0 { yield &head } else { yield &tail[index - 1] }
        }
    }

    /// Every key, ascending. O(n).
    var keys: [Int32] {
        var result: [Int32] = []
        result.reserveCapacity(count)
        for index in 0..<chunkCount { result.append(contentsOf: self[chunk: index].lazy.map(\.key)) }
        return result
    }

    /// The chunk that holds `key` or would: the first whose last key is not below it, or
    /// the last chunk. O(log(n / B)).
    private func chunkIndex(for key: Int32) -> Int {
        var low = 0, high = chunkCount - 1
        while low < high {
            let mid = (low + high) / 2
            if self[chunk: mid][self[chunk: mid].count - 1].key < key { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The position of `key` in `chunk`, or where it would go. O(log B).
    private static func offset(of key: Int32, in chunk: Chunk) -> (offset: Int, found: Bool) {
        var low = 0, high = chunk.count
        while low < high {
            let mid = (low + high) / 2
            if chunk[mid].key < key { low = mid + 1 } else { high = mid }
        }
        return (low, low < chunk.count && chunk[low].key == key)
    }

    /// The value stored with `key`, or nil. O(log n).
    func value(of key: Int32) -> Value? {
        guard !head.isEmpty else { return nil }
        let index = chunkIndex(for: key)
        let chunk = self[chunk: index]
        let (offset, found) = Self.offset(of: key, in: chunk)
        return found ? chunk[offset].value : nil
    }

    func contains(_ key: Int32) -> Bool { value(of: key) != nil }

    /// Adds `key` with `value`, or replaces the value of a key already present.
    mutating func insert(_ key: Int32, _ value: Value) {
        let last = chunkCount - 1
        // The usual case: a new entity, whose key is larger than every other.
        if last < 0 || self[chunk: last][self[chunk: last].count - 1].key < key {
            if last >= 0, self[chunk: last].count < Self.maxChunk {
                self[chunk: last].append((key, value))
            } else if last < 0 {
                head.append((key, value))
            } else {
                tail.append([(key, value)])
            }
            count += 1
            return
        }
        let index = chunkIndex(for: key)
        let (offset, found) = Self.offset(of: key, in: self[chunk: index])
        if found {
            self[chunk: index][offset].value = value
            return
        }
        self[chunk: index].insert((key, value), at: offset)
        count += 1
        if self[chunk: index].count > Self.maxChunk { split(index) }
    }

    /// Removes `key`; returns whether it was present.
    @discardableResult
    mutating func remove(_ key: Int32) -> Bool {
        guard !head.isEmpty else { return false }
        let index = chunkIndex(for: key)
        let (offset, found) = Self.offset(of: key, in: self[chunk: index])
        guard found else { return false }
        self[chunk: index].remove(at: offset)
        count -= 1
        if self[chunk: index].isEmpty {
            removeChunk(index)
        } else if self[chunk: index].count < Self.maxChunk / 4 {
            mergeIfSmall(index)
        }
        return true
    }

    private mutating func removeChunk(_ index: Int) {
        if index > 0 {
            tail.remove(at: index - 1)
        } else {
            head = tail.isEmpty ? [] : tail.removeFirst()
        }
    }

    /// Splits an overfull chunk in two halves.
    private mutating func split(_ index: Int) {
        let half = self[chunk: index].count / 2
        let upper = Chunk(self[chunk: index][half...])
        self[chunk: index].removeSubrange(half...)
        tail.insert(upper, at: index)
    }

    /// Joins a small chunk with its next neighbour when both fit in half a chunk, so many
    /// removals cannot leave a directory of nearly empty chunks.
    private mutating func mergeIfSmall(_ index: Int) {
        let next = index + 1
        guard next < chunkCount, self[chunk: index].count + self[chunk: next].count <= Self.maxChunk / 2 else { return }
        let moved = self[chunk: next]
        self[chunk: index].append(contentsOf: moved)
        tail.remove(at: next - 1)
    }
}

extension ChunkedKeyList {
    /// Whether the structure is sound: keys ascending across chunks, no empty or overfull
    /// chunk, `count` right, and at most 8n / B + 1 chunks (small chunks get merged). For tests.
    var isConsistent: Bool {
        var previous: Int32?
        var total = 0
        if head.isEmpty && !tail.isEmpty { return false }
        for index in 0..<chunkCount {
            let chunk = self[chunk: index]
            guard !chunk.isEmpty, chunk.count <= Self.maxChunk else { return false }
            for element in chunk {
                if let previous, previous >= element.key { return false }
                previous = element.key
            }
            total += chunk.count
        }
        return total == count && chunkCount <= 8 * count / Self.maxChunk + 1
    }
}

extension ChunkedKeyList: Sequence {
    /// Keys with their values, ascending.
    struct Iterator: IteratorProtocol {
        fileprivate let list: ChunkedKeyList
        fileprivate var chunk = 0, offset = 0
        fileprivate var current: Chunk

        fileprivate init(_ list: ChunkedKeyList) {
            self.list = list
            current = list.head
        }

        mutating func next() -> Element? {
            while offset == current.count {
                chunk += 1
                guard chunk < list.chunkCount else { return nil }
                current = list[chunk: chunk]
                offset = 0
            }
            defer { offset += 1 }
            return current[offset]
        }
    }

    func makeIterator() -> Iterator { Iterator(self) }

    var underestimatedCount: Int { count }
}
