/// The positions of a long ``LinkList``'s keys: key -> its index in the list's storage.
///
/// A list shared with a snapshot (every write's graph shares its lists with the one before
/// it) is copied when written. Its index, one dictionary, made each message sent to a chat
/// of a million copy a million entries (3 ms). Past ``shardingThreshold`` keys the index
/// is ``shardCount`` dictionaries, as in ``ShardedDictionary``: a write to a shared list
/// copies the array of shards and the one shard it changes, O(shardCount + n / shardCount).
/// Split by the key's low bits rather than its hash: interned keys are dense integers, and
/// hashing each would cost every access. Shorter lists keep one dictionary, so the many
/// short lists of a graph allocate one each. The threshold was 4,096 keys until 2026-11-27:
/// every message sent to a chat of a few thousand then copied that many entries
/// (`schemastore-bench write-growth`, a chat of 2,000 to 3,000 messages).
struct LinkPositions: Sendable {
    static let shardingThreshold = 512
    static let shardCount = 64

    private var shards: ContiguousArray<[Int32: Int]>
    /// `shards.count - 1`: a key's shard is `key & mask`.
    private let mask: Int

    /// The index of `storage`, whose negative entries are tombstones. O(n).
    init(_ storage: LinkStorage) {
        let count = storage.count >= Self.shardingThreshold ? Self.shardCount : 1
        var shards = ContiguousArray<[Int32: Int]>(repeating: [:], count: count)
        for index in shards.indices { shards[index].reserveCapacity(storage.count / count) }
        let mask = count - 1
        storage.forEach { position, key in
            if key >= 0 { shards[Int(key) & mask][key] = position }
        }
        self.shards = shards
        self.mask = mask
    }

    /// Whether the index is split (built from at least ``shardingThreshold`` keys).
    var isSharded: Bool { mask > 0 }

    /// The position of `key`. O(1); setting first copies the key's shard when a copy of the
    /// list shares it.
    subscript(key: Int32) -> Int? {
        get { shards[Int(key) & mask][key] }
        _modify { yield &shards[Int(key) & mask][key] }
    }
}
