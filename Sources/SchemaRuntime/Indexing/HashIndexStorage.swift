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
        let shard = ShardedDictionary<IndexKey, ChunkedKeyList<Void>>.shard(of: key)
        guard let index = buckets.shards[shard].index(forKey: key) else { return }
        buckets.shards[shard].values[index].remove(entity)
        if buckets.shards[shard].values[index].isEmpty { buckets.shards[shard].remove(at: index) }
    }

    /// The entities with `key`, ascending.
    func entities(_ key: IndexKey) -> [Int32] { buckets[key]?.keys ?? [] }

    /// The number of entities with `key`. O(1).
    func count(_ key: IndexKey) -> Int { buckets[key]?.count ?? 0 }
}

/// The unique index: key -> the one entity holding it. O(1) lookup, insert and remove.
/// Sharded, like a table's id map: a write to a table shared with a snapshot copies one
/// shard of it, not the whole index (see ``ShardedDictionary``).
@usableFromInline
struct UniqueIndexStorage: Sendable {
    private(set) var owners = ShardedDictionary<IndexKey, Int32>()

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
