/// The hash index: key -> the entities with that key, ascending. Equality lookup is
/// O(1 + k) for the k entities sharing the key; insert and remove are O(log k + B) (B the
/// chunk size of ``ChunkedKeyList``), so a bucket holding a third of the table (a status
/// field) costs no more to update than a small one.
@usableFromInline
struct HashIndexStorage: Sendable {
    /// Sharded, so a write to an index shared with a snapshot copies one shard of the
    /// directory (see ``ShardedDictionary``).
    private(set) var buckets = ShardedDictionary<IndexKey, ChunkedKeyList<Void>>()

    @usableFromInline init() {}

    @usableFromInline
    mutating func insert(_ key: IndexKey, _ entity: Int32) {
        buckets[key, default: ChunkedKeyList()].insert(entity, ())
    }

    @usableFromInline
    mutating func remove(_ key: IndexKey, _ entity: Int32) {
        buckets.updateValue(forKey: key) { bucket in
            bucket.remove(entity)
            return !bucket.isEmpty
        }
    }

    /// The entities with `key`, ascending.
    func entities(_ key: IndexKey) -> [Int32] { buckets[key]?.keys ?? [] }

    /// The number of entities with `key`. O(1).
    func count(_ key: IndexKey) -> Int { buckets[key]?.count ?? 0 }
}

/// The unique index: key -> the one entity holding it. O(1) lookup, insert and remove.
/// Sharded, like a table's id map: a write to a table shared with a snapshot copies one
/// shard of it, not the whole index (see ``ShardedDictionary``).
///
/// A collision a resolver accepted (``CollisionResolver/acceptsCollisions``, SwiftletModel's
/// resolvers) leaves several entities under one key: the first stays the owner, the others
/// are kept in `shared`, so lookups still find every entity with the key.
@usableFromInline
struct UniqueIndexStorage: Sendable {
    private(set) var owners = ShardedDictionary<IndexKey, Int32>()
    /// Entities holding a key beside its owner, ascending; empty unless collisions were accepted.
    private(set) var shared: [IndexKey: [Int32]] = [:]

    @usableFromInline init() {}

    @usableFromInline
    mutating func insert(_ key: IndexKey, _ entity: Int32) {
        guard let owner = owners[key], owner != entity else {
            owners[key] = entity
            return
        }
        var others = shared[key] ?? []
        guard !others.contains(entity) else { return }
        others.insert(entity, at: others.firstIndex { $0 > entity } ?? others.count)
        shared[key] = others
    }

    @usableFromInline
    mutating func remove(_ key: IndexKey, _ entity: Int32) {
        if owners[key] == entity {
            // Another holder of an accepted collision becomes the owner.
            if var others = shared[key], !others.isEmpty {
                owners[key] = others.removeFirst()
                shared[key] = others.isEmpty ? nil : others
            } else {
                owners[key] = nil
            }
        } else if var others = shared[key], let index = others.firstIndex(of: entity) {
            others.remove(at: index)
            shared[key] = others.isEmpty ? nil : others
        }
    }

    /// The entity holding `key` (the first, after an accepted collision).
    @usableFromInline
    func owner(_ key: IndexKey) -> Int32? { owners[key] }

    /// Every entity holding `key`, ascending. O(1) without accepted collisions.
    func entities(_ key: IndexKey) -> [Int32] {
        guard let owner = owners[key] else { return [] }
        guard let others = shared[key] else { return [owner] }
        return ([owner] + others).sorted()
    }

    /// Another entity than `entity` holding `key`, if any.
    @usableFromInline
    func otherHolder(of key: IndexKey, than entity: Int32?) -> Int32? {
        if let owner = owners[key], owner != entity { return owner }
        return shared[key]?.first { $0 != entity }
    }
}
