/// A dictionary split into ``shardCount`` dictionaries by hash, for a table's id -> key map.
///
/// For the same reason as ``ChunkedArray``: a context copy shares the map, and a write that
/// interns a new id would copy a flat dictionary whole (O(n)). Here it copies the shard
/// index and one shard: O(shardCount + n / shardCount). Each access hashes the key once
/// more than a flat dictionary does, to pick the shard. 64 shards: 256 made bulk saves 14%
/// slower (more, smaller tables), 16 and 64 were as fast as a flat dictionary.
@usableFromInline
struct ShardedDictionary<Key: Hashable, Value> {
    @usableFromInline static var shardCount: Int { 64 }

    @usableFromInline var shards = ContiguousArray<[Key: Value]>(repeating: [:], count: shardCount)

    @inlinable init() {}

    @inlinable static func shard(of key: Key) -> Int { key.hashValue & (shardCount - 1) }

    /// O(1) on average; a write to a shard shared with a copy first copies that shard.
    @inlinable subscript(key: Key) -> Value? {
        get { shards[Self.shard(of: key)][key] }
        _modify { yield &shards[Self.shard(of: key)][key] }
    }

    @inlinable subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
        get { shards[Self.shard(of: key)][key, default: defaultValue()] }
        _modify { yield &shards[Self.shard(of: key)][key, default: defaultValue()] }
    }
}

extension ShardedDictionary: Sendable where Key: Sendable, Value: Sendable {}
