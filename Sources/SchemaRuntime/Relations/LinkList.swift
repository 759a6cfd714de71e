/// The ordered, duplicate-free list of keys one entity links to through a to-many relation.
///
/// Small lists (the common case: a chat's admins, a message's viewers) are a plain array and
/// membership is a linear scan. Past ``setThreshold`` elements a hash set is kept beside the
/// array, so `contains` and `append` stay O(1) for long lists (a channel's messages).
@usableFromInline
struct LinkList: Sendable, Equatable {
    /// Linked keys in link order.
    private(set) var keys: ContiguousArray<Int32> = []
    private var set: Set<Int32>? = nil

    static let setThreshold = 32

    @usableFromInline
    static func == (lhs: LinkList, rhs: LinkList) -> Bool { lhs.keys == rhs.keys }

    init() {}

    /// A list of `keys` with duplicates dropped (first occurrence wins). O(n).
    init<S: Sequence<Int32>>(deduplicating keys: S) {
        for key in keys where !contains(key) { appendAssumingAbsent(key) }
    }

    var isEmpty: Bool { keys.isEmpty }
    var count: Int { keys.count }

    /// O(1) for long lists, O(n) below ``setThreshold``.
    func contains(_ key: Int32) -> Bool {
        if let set { return set.contains(key) }
        return keys.contains(key)
    }

    /// Appends a key the caller knows is absent. Amortized O(1).
    mutating func appendAssumingAbsent(_ key: Int32) {
        keys.append(key)
        if set != nil {
            set!.insert(key)
        } else if keys.count > Self.setThreshold {
            set = Set(keys)
        }
    }

    /// Removes `key` and returns the index it had, or nil if absent. O(n).
    @discardableResult
    mutating func remove(_ key: Int32) -> Int? {
        guard contains(key), let index = keys.firstIndex(of: key) else { return nil }
        keys.remove(at: index)
        set?.remove(key)
        return index
    }

    /// Inserts `key` at `index` (used to undo a removal). O(n).
    mutating func insert(_ key: Int32, at index: Int) {
        keys.insert(key, at: index)
        if set != nil { set!.insert(key) } else if keys.count > Self.setThreshold { set = Set(keys) }
    }

    /// Removes the last key (used to undo an append). O(1).
    mutating func removeLast() {
        let key = keys.removeLast()
        set?.remove(key)
    }
}
