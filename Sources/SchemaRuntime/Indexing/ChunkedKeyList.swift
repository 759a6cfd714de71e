/// A sorted set of entity keys, each with a value, stored in chunks so that removing a key
/// from a list of a million costs the same as from a list of a thousand.
///
/// Used for full-text posting lists (value: the token's count in the entity) and hash index
/// buckets (value: `Void`, which takes no memory). A flat sorted array shifts every later
/// key on each removal; here keys live in sorted chunks of at most ``maxChunk``, the last key
/// of each chunk bounding it.
///
/// Complexity, for n keys and chunk size B = ``maxChunk``:
/// - `insert`, `remove`: O(log n + B), plus O(n / B) to shift the chunk directory when a
///   chunk splits, empties or merges (at most once per B / 4 operations on that chunk);
///   appending a key larger than every other (new entities get new, larger keys) is O(1)
///   amortized;
/// - `value(of:)`, `contains`: O(log n);
/// - iteration in key order: O(n).
struct ChunkedKeyList<Value: Sendable>: Sendable {
    struct Chunk: Sendable {
        var keys: ContiguousArray<Int32> = []
        var values: ContiguousArray<Value> = []
    }

    private(set) var chunks: [Chunk] = []
    private(set) var count = 0

    /// Large enough that the directory stays small, small enough that the shift inside a
    /// chunk is a few hundred bytes.
    static var maxChunk: Int { 256 }

    init() {}

    var isEmpty: Bool { count == 0 }

    /// Every key, ascending. O(n).
    var keys: [Int32] {
        var result: [Int32] = []
        result.reserveCapacity(count)
        for chunk in chunks { result.append(contentsOf: chunk.keys) }
        return result
    }

    /// The chunk that holds `key` or would: the first whose last key is not below it, or
    /// the last chunk. O(log(n / B)).
    private func chunkIndex(for key: Int32) -> Int {
        var low = 0, high = chunks.count - 1
        while low < high {
            let mid = (low + high) / 2
            if chunks[mid].keys[chunks[mid].keys.count - 1] < key { low = mid + 1 } else { high = mid }
        }
        return low
    }

    /// The position of `key` in `chunk`, or where it would go. O(log B).
    private static func offset(of key: Int32, in keys: ContiguousArray<Int32>) -> (offset: Int, found: Bool) {
        var low = 0, high = keys.count
        while low < high {
            let mid = (low + high) / 2
            if keys[mid] < key { low = mid + 1 } else { high = mid }
        }
        return (low, low < keys.count && keys[low] == key)
    }

    /// The value stored with `key`, or nil. O(log n).
    func value(of key: Int32) -> Value? {
        guard !chunks.isEmpty else { return nil }
        let index = chunkIndex(for: key)
        let (offset, found) = Self.offset(of: key, in: chunks[index].keys)
        return found ? chunks[index].values[offset] : nil
    }

    func contains(_ key: Int32) -> Bool { value(of: key) != nil }

    /// Adds `key` with `value`, or replaces the value of a key already present.
    mutating func insert(_ key: Int32, _ value: Value) {
        // The usual case: a new entity, whose key is larger than every other.
        if let last = chunks.indices.last, let lastKey = chunks[last].keys.last, lastKey < key {
            if chunks[last].keys.count < Self.maxChunk {
                chunks[last].keys.append(key)
                chunks[last].values.append(value)
            } else {
                chunks.append(Chunk(keys: [key], values: [value]))
            }
            count += 1
            return
        }
        guard !chunks.isEmpty else {
            chunks.append(Chunk(keys: [key], values: [value]))
            count = 1
            return
        }
        let index = chunkIndex(for: key)
        let (offset, found) = Self.offset(of: key, in: chunks[index].keys)
        if found {
            chunks[index].values[offset] = value
            return
        }
        chunks[index].keys.insert(key, at: offset)
        chunks[index].values.insert(value, at: offset)
        count += 1
        if chunks[index].keys.count > Self.maxChunk { split(index) }
    }

    /// Removes `key`; returns whether it was present.
    @discardableResult
    mutating func remove(_ key: Int32) -> Bool {
        guard !chunks.isEmpty else { return false }
        let index = chunkIndex(for: key)
        let (offset, found) = Self.offset(of: key, in: chunks[index].keys)
        guard found else { return false }
        chunks[index].keys.remove(at: offset)
        chunks[index].values.remove(at: offset)
        count -= 1
        if chunks[index].keys.isEmpty {
            chunks.remove(at: index)
        } else if chunks[index].keys.count < Self.maxChunk / 4 {
            mergeIfSmall(index)
        }
        return true
    }

    /// Splits an overfull chunk in two halves.
    private mutating func split(_ index: Int) {
        let half = chunks[index].keys.count / 2
        let upper = Chunk(keys: ContiguousArray(chunks[index].keys[half...]), values: ContiguousArray(chunks[index].values[half...]))
        chunks[index].keys.removeSubrange(half...)
        chunks[index].values.removeSubrange(half...)
        chunks.insert(upper, at: index + 1)
    }

    /// Joins a small chunk with its next neighbour when both fit in one, so many removals
    /// cannot leave a directory of nearly empty chunks.
    private mutating func mergeIfSmall(_ index: Int) {
        let next = index + 1
        guard next < chunks.count, chunks[index].keys.count + chunks[next].keys.count <= Self.maxChunk / 2 else { return }
        chunks[index].keys.append(contentsOf: chunks[next].keys)
        chunks[index].values.append(contentsOf: chunks[next].values)
        chunks.remove(at: next)
    }
}

extension ChunkedKeyList {
    /// Whether the structure is sound: keys ascending across chunks, no empty or overfull
    /// chunk, `count` right, and at most 8n / B + 1 chunks (small chunks get merged). For tests.
    var isConsistent: Bool {
        var previous: Int32?
        var total = 0
        for chunk in chunks {
            guard !chunk.keys.isEmpty, chunk.keys.count <= Self.maxChunk, chunk.keys.count == chunk.values.count else { return false }
            for key in chunk.keys {
                if let previous, previous >= key { return false }
                previous = key
            }
            total += chunk.keys.count
        }
        return total == count && chunks.count <= 8 * count / Self.maxChunk + 1
    }
}

extension ChunkedKeyList: Sequence {
    /// Keys with their values, ascending.
    struct Iterator: IteratorProtocol {
        fileprivate let chunks: [Chunk]
        fileprivate var chunk = 0, offset = 0

        mutating func next() -> (key: Int32, value: Value)? {
            while chunk < chunks.count {
                if offset < chunks[chunk].keys.count {
                    defer { offset += 1 }
                    return (chunks[chunk].keys[offset], chunks[chunk].values[offset])
                }
                chunk += 1
                offset = 0
            }
            return nil
        }
    }

    func makeIterator() -> Iterator { Iterator(chunks: chunks) }

    var underestimatedCount: Int { count }
}
