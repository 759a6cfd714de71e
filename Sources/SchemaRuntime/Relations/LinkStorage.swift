/// The keys of a ``LinkList`` in link order, `-1` marking a tombstone: one flat array, or
/// for long lists (``LinkList/chunkingThreshold`` keys and more) a ``ChunkedArray``.
///
/// Every write's graph shares its lists with the graph before it, so the first write to a
/// list copies what it changes. A flat array copies all its keys: sending one message to a
/// chat of a million copied 4 MB, a third of that write's time in memory. Chunked, an
/// append claims the next slot of the shared last chunk in place (``ChunkedArray``) and
/// copies nothing; setting a tombstone copies one chunk (and, for an older key, the chunk
/// index's group). Short lists stay flat: a chunk allocates room for 1,024 keys.
@usableFromInline
enum LinkStorage: Sendable {
    case flat(ContiguousArray<Int32>)
    case chunked(ChunkedArray<Int32>)

    /// Flat or chunked by length: chunked from `chunkingThreshold` keys. O(n).
    init(_ keys: some Collection<Int32>, chunkingThreshold: Int) {
        if keys.count >= chunkingThreshold {
            var chunks = ChunkedArray<Int32>()
            chunks.append(contentsOf: keys)
            self = .chunked(chunks)
        } else {
            self = .flat(ContiguousArray(keys))
        }
    }

    var isChunked: Bool {
        if case .chunked = self { return true }
        return false
    }

    /// Keys and tombstones. O(1).
    var count: Int {
        switch self {
        case .flat(let keys): return keys.count
        case .chunked(let keys): return keys.count
        }
    }

    var last: Int32? {
        switch self {
        case .flat(let keys): return keys.last
        case .chunked(let keys): return keys.last
        }
    }

    /// O(1); setting first copies the array, or the key's chunk, if a copy shares it.
    subscript(position: Int) -> Int32 {
        get {
            switch self {
            case .flat(let keys): return keys[position]
            case .chunked(let keys): return keys[position]
            }
        }
        set {
            // The payload is taken out first, so that it is uniquely referenced while written.
            switch self {
            case .flat(var keys):
                self = .flat([])
                keys[position] = newValue
                self = .flat(keys)
            case .chunked(var keys):
                self = .flat([])
                keys[position] = newValue
                self = .chunked(keys)
            }
        }
    }

    /// Amortized O(1) chunked; flat, O(n) when a copy shares the array.
    mutating func append(_ key: Int32) {
        switch self {
        case .flat(var keys):
            self = .flat([])
            keys.append(key)
            self = .flat(keys)
        case .chunked(var keys):
            self = .flat([])
            keys.append(key)
            self = .chunked(keys)
        }
    }

    @discardableResult
    mutating func removeLast() -> Int32 {
        switch self {
        case .flat(var keys):
            self = .flat([])
            defer { self = .flat(keys) }
            return keys.removeLast()
        case .chunked(var keys):
            self = .flat([])
            defer { self = .chunked(keys) }
            return keys.removeLast()
        }
    }

    /// Runs `body` on the keys as one flat array, uniquely referenced (a chunked storage is
    /// flattened first, O(n)), and keeps them flat.
    mutating func withFlatKeys<Result>(_ body: (inout ContiguousArray<Int32>) -> Result) -> Result {
        var keys: ContiguousArray<Int32>
        switch self {
        case .flat(let flat): keys = flat
        case .chunked(let chunks): keys = ContiguousArray(chunks)
        }
        self = .flat([])
        defer { self = .flat(keys) }
        return body(&keys)
    }

    /// The keys, tombstones left out. O(n), or O(1) for a flat array without tombstones.
    @usableFromInline func keys(hasTombstones: Bool) -> ContiguousArray<Int32> {
        switch self {
        case .flat(let keys):
            return hasTombstones ? keys.filter { $0 >= 0 } : keys
        case .chunked(let keys):
            var result = ContiguousArray<Int32>()
            result.reserveCapacity(keys.count)
            for key in keys where key >= 0 { result.append(key) }
            return result
        }
    }

    /// Calls `body` with each position and key, tombstones included, in order. O(n).
    func forEach(_ body: (Int, Int32) -> Void) {
        switch self {
        case .flat(let keys): for (position, key) in keys.enumerated() { body(position, key) }
        case .chunked(let keys): for (position, key) in keys.enumerated() { body(position, key) }
        }
    }
}
