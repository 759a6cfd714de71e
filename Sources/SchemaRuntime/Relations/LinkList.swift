/// The ordered, duplicate-free list of keys one entity links to through a to-many relation.
///
/// Small lists (the common case: a chat's admins, a message's viewers) are a plain array and
/// membership is a linear scan. Past ``indexThreshold`` elements each key's position is kept
/// in an index (``LinkPositions``), so `contains`, `append` and `remove` stay O(1)
/// (amortized) for long lists (a channel's million messages): a removal leaves a tombstone
/// (`-1`) instead of shifting the keys after it, and ``compactIfSparse()`` drops tombstones
/// once they are half the list. From ``LinkPositions/shardingThreshold`` keys its index is
/// split (``LinkPositions``), and from ``chunkingThreshold`` the list is chunked
/// (``LinkStorage``): writing a long list that a copy shares (a snapshot's) then copies at
/// most one chunk of its keys (and, removing an older key, a group of their chunk index) and
/// one shard of its index, not its keys (4 MB for a million).
@usableFromInline
struct LinkList: Sendable, Equatable {
    /// Linked keys in link order, with `-1` tombstones in long lists. Flat below
    /// ``chunkingThreshold`` keys, chunked from there (decided when positions are indexed).
    @usableFromInline var storage: LinkStorage = .flat([])
    /// For long lists: key -> its position in `storage`.
    private var positions: LinkPositions? = nil
    @usableFromInline var tombstones = 0

    static let indexThreshold = 32
    /// The length from which the keys are chunked (their positions are split in shards
    /// sooner, from ``LinkPositions/shardingThreshold``).
    static let chunkingThreshold = 4096

    @usableFromInline
    static func == (lhs: LinkList, rhs: LinkList) -> Bool { lhs.keys == rhs.keys }

    @usableFromInline init() {}

    /// A list of `keys` with duplicates dropped (first occurrence wins). O(n).
    init<S: Sequence<Int32>>(deduplicating keys: S) {
        for key in keys where !contains(key) { appendAssumingAbsent(key) }
    }

    /// Linked keys in link order. O(1) for a flat list without tombstones, else O(n).
    @inlinable
    var keys: ContiguousArray<Int32> {
        if tombstones == 0, case .flat(let keys) = storage { return keys }
        return storage.keys(hasTombstones: tombstones > 0)
    }

    var isEmpty: Bool { count == 0 }
    var count: Int { storage.count - tombstones }

    /// O(1) for long lists, O(n) below ``indexThreshold``.
    func contains(_ key: Int32) -> Bool {
        if let positions { return positions[key] != nil }
        switch storage {
        case .flat(let keys): return keys.contains(key)
        case .chunked(let keys): return keys.contains(key)
        }
    }

    /// Appends a key the caller knows is absent. Amortized O(1).
    mutating func appendAssumingAbsent(_ key: Int32) {
        storage.append(key)
        // No binding of `positions`: a copy alive while it is written would copy a shard.
        if positions != nil, positions!.isSharded || storage.count < LinkPositions.shardingThreshold,
           storage.isChunked || storage.count < Self.chunkingThreshold {
            positions![key] = storage.count - 1
        } else if storage.count > Self.indexThreshold {
            // Indexed first, split once long enough, and chunked once longer still.
            indexPositions()
        }
    }

    /// Removes `key` and returns the position it had in storage (the argument
    /// ``restore(_:at:)`` needs to undo the removal), or nil if it was absent. O(1) for long
    /// lists, which leave a tombstone there (``compactIfSparse()`` drops them later); O(n)
    /// below ``indexThreshold``.
    mutating func remove(_ key: Int32) -> Int? {
        guard positions != nil else {
            return storage.withFlatKeys { keys in
                guard let index = keys.firstIndex(of: key) else { return nil }
                keys.remove(at: index)
                return index
            }
        }
        guard let index = positions![key] else { return nil }
        positions![key] = nil
        storage[index] = -1
        tombstones += 1
        return index
    }

    /// Puts `key` back where ``remove(_:)`` took it from, the list being as the removal left
    /// it (rollback undoes writes newest first). O(1) over a tombstone, else O(n).
    mutating func restore(_ key: Int32, at index: Int) {
        if index < storage.count, storage[index] < 0 {
            storage[index] = key
            tombstones -= 1
            positions?[key] = index
            return
        }
        storage.withFlatKeys { $0.insert(key, at: index) }
        if positions != nil || storage.count > Self.indexThreshold { indexPositions() }
    }

    /// Drops the tombstones once they are at least half the storage: O(n), so O(1) amortized
    /// over the n / 2 removals that made them. Rollback addresses keys by storage position,
    /// so the link engine calls this only when no transaction can still undo a removal.
    mutating func compactIfSparse() {
        if tombstones > Self.indexThreshold, tombstones * 2 >= storage.count { compact() }
    }

    /// Removes and returns the last key (used to undo an append). O(1) amortized.
    @discardableResult
    mutating func removeLast() -> Int32 {
        while let last = storage.last, last < 0 {
            storage.removeLast()
            tombstones -= 1
        }
        let key = storage.removeLast()
        positions?[key] = nil
        return key
    }

    /// The last `count` keys, in order. O(count + the tombstones among the last keys).
    func lastKeys(_ count: Int) -> [Int32] {
        var result: [Int32] = []
        result.reserveCapacity(count)
        var index = storage.count
        while result.count < count, index > 0 {
            index -= 1
            let key = storage[index]
            if key >= 0 { result.append(key) }
        }
        return result.reversed()
    }

    /// Drops tombstones and renumbers positions. O(n).
    private mutating func compact() {
        guard tombstones > 0 else { return }
        storage.withFlatKeys { $0.removeAll { $0 < 0 } }
        tombstones = 0
        if positions != nil { indexPositions() }
    }

    /// Indexes the positions of the keys, split in shards from
    /// ``LinkPositions/shardingThreshold`` keys; chunks the keys from ``chunkingThreshold``. O(n).
    private mutating func indexPositions() {
        let chunked = storage.count >= Self.chunkingThreshold
        if chunked != storage.isChunked {
            storage = storage.withFlatKeys { LinkStorage($0, chunkingThreshold: Self.chunkingThreshold) }
        }
        positions = LinkPositions(storage)
    }
}
