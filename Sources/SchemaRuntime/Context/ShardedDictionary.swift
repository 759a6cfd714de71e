/// A dictionary split into shards by hash, for a table's id -> key map and the directories
/// of its indexes.
///
/// For the same reason as ``ChunkedArray``: a context copy shares the map, and a write that
/// interns a new id would copy a flat dictionary whole (O(n)). Here it copies the array of
/// shards and the one shard it changes: O(s + n / s) for s shards.
///
/// The number of shards grows with the dictionary: ``minimumShardCount`` until the count
/// passes `16 s²`, then one more shard each time it passes `16 s²` again, so that a shard
/// holds about 4√n entries and the array of shards √n / 4 (at a million entries, 256
/// shards of about 4,000, where a fixed 64 made shards of 16,000: copying one was a quarter
/// of a small write's time in memory, `schemastore-bench write-growth`). Shards split one at
/// a time, in order, by linear hashing (Litwin, 1980): each split moves about half of one
/// shard's entries to a new shard at the end, so no insertion rehashes the whole map, and
/// splits cost O(1) amortized per insertion. Shard `i` holds the keys whose hash, masked
/// to the power of two above s, is `i`, or masked to the power of two at or below s when
/// that first mask lands past the last shard. Shards never merge again when keys go.
@usableFromInline
struct ShardedDictionary<Key: Hashable, Value> {
    /// Shards of a new dictionary: 16 and 64 made bulk saves as fast as a flat dictionary,
    /// 256 made them 14% slower (more, smaller tables).
    @usableFromInline static var minimumShardCount: Int { 64 }

    @usableFromInline var shards: ContiguousArray<[Key: Value]>
    /// The number of entries, in every shard.
    @usableFromInline var count = 0
    /// The power of two at or below `shards.count`.
    @usableFromInline var splitBase: Int

    @inlinable init() {
        shards = ContiguousArray(repeating: [:], count: Self.minimumShardCount)
        splitBase = Self.minimumShardCount
    }

    /// A dictionary starting with `shardCount` shards, a power of two: one for a context
    /// that holds few rows (``EntityTable/init(indexed:uniqueOnly:fewRows:)``); tests use
    /// few, to split many times with few keys.
    init(shardCount: Int) {
        precondition(shardCount > 0 && shardCount & (shardCount - 1) == 0, "a power of two")
        shards = ContiguousArray(repeating: [:], count: shardCount)
        splitBase = shardCount
    }

    /// The shard that holds `key`. O(1), one hash of `key`.
    @inlinable func shard(of key: Key) -> Int {
        let hash = key.hashValue
        let index = hash & (2 * splitBase - 1)
        return index < shards.count ? index : hash & (splitBase - 1)
    }

    /// O(1) on average; a write to a shard shared with a copy first copies that shard, and
    /// an insertion may split one shard (O(n / s)).
    @inlinable subscript(key: Key) -> Value? {
        get { shards[shard(of: key)][key] }
        _modify {
            let index = shard(of: key)
            let before = shards[index].count
            defer { counted(shards[index].count - before) }
            yield &shards[index][key]
        }
    }

    @inlinable subscript(key: Key, default defaultValue: @autoclosure () -> Value) -> Value {
        get { shards[shard(of: key)][key, default: defaultValue()] }
        _modify {
            let index = shard(of: key)
            let before = shards[index].count
            defer { counted(shards[index].count - before) }
            yield &shards[index][key, default: defaultValue()]
        }
    }

    /// Runs `body` on the value of `key` in place, where the shard's storage is the value's
    /// only owner, and removes the entry when `body` returns false. Nothing when `key` is
    /// absent. O(1) on average, plus what `body` costs.
    @inlinable mutating func updateValue(forKey key: Key, keepingIf body: (inout Value) -> Bool) {
        let index = shard(of: key)
        guard let position = shards[index].index(forKey: key) else { return }
        if !body(&shards[index].values[position]) {
            shards[index].remove(at: position)
            count -= 1
        }
    }

    /// Adds `change` to the count, then splits a shard if the count passed `16 s²`.
    @inlinable mutating func counted(_ change: Int) {
        count += change
        if change > 0, count > 16 * shards.count * shards.count { splitNextShard() }
    }

    /// Splits shard `shards.count - splitBase` in two: the keys whose hash masked to
    /// `2 * splitBase` is the new shard's index move to the new shard at the end. O(n / s).
    @usableFromInline mutating func splitNextShard() {
        let source = shards.count - splitBase
        let target = shards.count
        var moved: [Key: Value] = [:]
        var kept: [Key: Value] = [:]
        kept.reserveCapacity(shards[source].count / 2 + 1)
        moved.reserveCapacity(shards[source].count / 2 + 1)
        for (key, value) in shards[source] {
            if key.hashValue & (2 * splitBase - 1) == target { moved[key] = value } else { kept[key] = value }
        }
        shards[source] = kept
        shards.append(moved)
        if shards.count == 2 * splitBase { splitBase *= 2 }
    }
}

extension ShardedDictionary: Sendable where Key: Sendable, Value: Sendable {}
