/// The positions of a long ``LinkList``'s keys: key -> its index in the list's storage.
///
/// A list shared with a snapshot (every write's graph shares its lists with the one before
/// it) is copied when written. Its index, one dictionary, made each message sent to a chat
/// of a million copy a million entries (3 ms). Past ``shardingThreshold`` keys, the index
/// is ``shardCount`` dictionaries, split by key, each in a box that copies of the list
/// share: a write copies the one it changes (1/64 of the index) and the array of boxes.
/// Smaller lists keep one dictionary (no allocation per shard for the many short lists).
struct LinkPositions: Sendable {
    static let shardingThreshold = 4096
    static let shardCount = 64

    /// One dictionary of the index, shared by copies of the list until one writes it.
    private final class Shard: @unchecked Sendable {
        // Mutated only through a box known to be uniquely referenced (`subscript(_:)`).
        var positions: [Int32: Int]
        init(_ positions: [Int32: Int]) { self.positions = positions }
    }

    private var shards: [Shard]
    /// `shards.count - 1`: a key's shard is `key & mask`.
    private let mask: Int

    /// The index of `storage`, whose negative entries are tombstones. O(n).
    init(_ storage: ContiguousArray<Int32>) {
        let count = storage.count >= Self.shardingThreshold ? Self.shardCount : 1
        var maps = Array(repeating: [Int32: Int](), count: count)
        for index in maps.indices { maps[index].reserveCapacity(storage.count / count) }
        for (position, key) in storage.enumerated() where key >= 0 { maps[Int(key) & (count - 1)][key] = position }
        shards = maps.map(Shard.init)
        mask = count - 1
    }

    /// Whether the index is split (built from at least ``shardingThreshold`` keys).
    var isSharded: Bool { mask > 0 }

    /// The position of `key`. O(1); setting copies only the key's shard when a copy of the
    /// list shares it, O(n / ``shardCount``).
    subscript(key: Int32) -> Int? {
        get { shards[Int(key) & mask].positions[key] }
        set {
            let index = Int(key) & mask
            if !isKnownUniquelyReferenced(&shards[index]) { shards[index] = Shard(shards[index].positions) }
            shards[index].positions[key] = newValue
        }
    }
}
