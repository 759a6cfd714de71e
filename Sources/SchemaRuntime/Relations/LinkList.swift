/// The ordered, duplicate-free list of keys one entity links to through a to-many relation.
///
/// Small lists (the common case: a chat's admins, a message's viewers) are a plain array and
/// membership is a linear scan. Past ``indexThreshold`` elements each key's position is kept
/// in a dictionary, so `contains`, `append` and `remove` stay O(1) amortized for long lists
/// (a channel's million messages): a removal leaves a tombstone (`-1`) instead of shifting
/// the keys after it, and the list is compacted once tombstones outnumber live keys.
@usableFromInline
struct LinkList: Sendable, Equatable {
    /// Linked keys in link order, with `-1` tombstones in long lists.
    private var storage: ContiguousArray<Int32> = []
    /// For long lists: key -> its position in `storage`.
    private var positions: [Int32: Int]? = nil
    private var tombstones = 0

    static let indexThreshold = 32

    @usableFromInline
    static func == (lhs: LinkList, rhs: LinkList) -> Bool { lhs.keys == rhs.keys }

    init() {}

    /// A list of `keys` with duplicates dropped (first occurrence wins). O(n).
    init<S: Sequence<Int32>>(deduplicating keys: S) {
        for key in keys where !contains(key) { appendAssumingAbsent(key) }
    }

    /// Linked keys in link order. O(1) without tombstones, else O(n).
    var keys: ContiguousArray<Int32> {
        tombstones == 0 ? storage : storage.filter { $0 >= 0 }
    }

    var isEmpty: Bool { count == 0 }
    var count: Int { storage.count - tombstones }

    /// O(1) for long lists, O(n) below ``indexThreshold``.
    func contains(_ key: Int32) -> Bool {
        if let positions { return positions[key] != nil }
        return storage.contains(key)
    }

    /// Appends a key the caller knows is absent. Amortized O(1).
    mutating func appendAssumingAbsent(_ key: Int32) {
        storage.append(key)
        if positions != nil {
            positions![key] = storage.count - 1
        } else if storage.count > Self.indexThreshold {
            indexPositions()
        }
    }

    /// Removes `key`; returns whether it was present, and the key it followed (nil when it
    /// was first), which is what ``insert(_:after:)`` needs to undo the removal. O(1)
    /// amortized for long lists (O(n) when a compaction runs, once per n / 2 removals),
    /// O(n) below ``indexThreshold``.
    mutating func remove(_ key: Int32) -> (removed: Bool, after: Int32?) {
        guard let positions else {
            guard let index = storage.firstIndex(of: key) else { return (false, nil) }
            storage.remove(at: index)
            return (true, index > 0 ? storage[index - 1] : nil)
        }
        guard let index = positions[key] else { return (false, nil) }
        self.positions![key] = nil
        storage[index] = -1
        tombstones += 1
        var previous = index - 1
        while previous >= 0, storage[previous] < 0 { previous -= 1 }
        let after = previous >= 0 ? storage[previous] : nil
        if tombstones > Self.indexThreshold, tombstones * 2 > storage.count { compact() }
        return (true, after)
    }

    /// Inserts `key` right after `previous` (first when nil), undoing a removal. O(n).
    mutating func insert(_ key: Int32, after previous: Int32?) {
        compact()
        let index = previous.flatMap { storage.firstIndex(of: $0).map { $0 + 1 } } ?? 0
        storage.insert(key, at: index)
        if positions != nil || storage.count > Self.indexThreshold { indexPositions() }
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

    /// Drops tombstones and renumbers positions. O(n).
    private mutating func compact() {
        guard tombstones > 0 else { return }
        storage.removeAll { $0 < 0 }
        tombstones = 0
        if positions != nil { indexPositions() }
    }

    private mutating func indexPositions() {
        var index: [Int32: Int] = [:]
        index.reserveCapacity(storage.count)
        for (position, key) in storage.enumerated() where key >= 0 { index[key] = position }
        positions = index
    }
}
