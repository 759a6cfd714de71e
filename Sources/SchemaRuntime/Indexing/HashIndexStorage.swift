/// The hash index: key -> entities with that key. Equality lookup is O(1 + k); insert is
/// O(1) amortized; remove is O(k) for the k entities sharing the key.
@usableFromInline
struct HashIndexStorage: Sendable {
    private(set) var buckets: [IndexKey: [Int32]] = [:]

    @usableFromInline init() {}

    @usableFromInline
    mutating func insert(_ key: IndexKey, _ entity: Int32) {
        buckets[key, default: []].append(entity)
    }

    @usableFromInline
    mutating func remove(_ key: IndexKey, _ entity: Int32) {
        guard var bucket = buckets.removeValue(forKey: key) else { return }
        if let index = bucket.firstIndex(of: entity) { bucket.remove(at: index) }
        if !bucket.isEmpty { buckets[key] = bucket }
    }

    func entities(_ key: IndexKey) -> [Int32] { buckets[key] ?? [] }
}

/// The unique index: key -> the one entity holding it. O(1) lookup, insert and remove.
@usableFromInline
struct UniqueIndexStorage: Sendable {
    private(set) var owners: [IndexKey: Int32] = [:]

    @usableFromInline init() {}

    @usableFromInline
    mutating func insert(_ key: IndexKey, _ entity: Int32) { owners[key] = entity }

    @usableFromInline
    mutating func remove(_ key: IndexKey, _ entity: Int32) {
        if owners[key] == entity { owners[key] = nil }
    }

    @usableFromInline
    func owner(_ key: IndexKey) -> Int32? { owners[key] }
}
