import Foundation
import DeterministicRandom
@testable import SchemaRuntime
import Testing

/// `ChunkedArray` and `ShardedDictionary` against `Array` and `Dictionary`: random
/// operations, with copies taken along the way that must never see later writes.
@Suite struct ChunkedStorageTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func chunkedArrayBehavesLikeAnArray(seed: UInt64) {
        // Plain values: chunks of 1,024.
        behavesLikeAnArray(seed: seed) { $0 }
        #expect(Array(ChunkedArray(repeating: 7, count: 5000)) == Array(repeating: 7, count: 5000))
    }

    /// Elements holding references live in smaller chunks (256), so the same steps fill
    /// many groups of the chunk index.
    @Test(arguments: [7, 8] as [UInt64])
    func chunkedArrayOfReferencesBehavesLikeAnArray(seed: UInt64) {
        #expect(ChunkedArray<String>.chunkSize < ChunkedArray<Int>.chunkSize)
        behavesLikeAnArray(seed: seed) { "element \($0)" }
    }

    /// Random appends, writes, removals and copies, against an `Array` of the same elements.
    private func behavesLikeAnArray<Element: Equatable>(seed: UInt64, _ make: (Int) -> Element) {
        var random = SplitMix64(seed: seed)
        var chunked = ChunkedArray<Element>()
        var reference: [Element] = []
        var snapshots: [(ChunkedArray<Element>, [Element])] = []
        for step in 0..<10_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                chunked.append(make(step))
                reference.append(make(step))
            case 5 where !reference.isEmpty:
                let index = Int.random(in: 0..<reference.count, using: &random)
                chunked[index] = make(-step)
                reference[index] = make(-step)
            case 6 where !reference.isEmpty:
                let count = Int.random(in: 0...min(reference.count, 2000), using: &random)
                chunked.removeLast(count)
                reference.removeLast(count)
            case 7 where snapshots.count < 40:
                snapshots.append((chunked, reference))
            default:
                let extra = Int.random(in: 0..<1000, using: &random)
                chunked.append(contentsOf: repeatElement(make(step), count: extra))
                reference.append(contentsOf: repeatElement(make(step), count: extra))
            }
            #expect(chunked.count == reference.count)
        }
        #expect(Array(chunked) == reference)
        #expect(reference.count > 64 * ChunkedArray<Element>.chunkSize, "fills more than one group of chunks")
        for (copy, expected) in snapshots { #expect(Array(copy) == expected) }
    }

    /// Copies that all go on changing (as a store's write does on a copy of its graph, and
    /// the app on copies of the store's context): each copy sees only its own changes, and
    /// every element is freed once, when no copy holds it.
    @Test(arguments: [4, 5, 6] as [UInt64])
    func copiesThatAllChangeStayIndependent(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let live = LiveCount()
        do {
            var holders: [(chunked: ChunkedArray<Tracked>, reference: [Int])] = [(ChunkedArray(), [])]
            for step in 0..<6_000 {
                let which = Int.random(in: 0..<holders.count, using: &random)
                switch Int.random(in: 0..<12, using: &random) {
                case 0..<6:
                    for _ in 0..<Int.random(in: 1...3, using: &random) {
                        holders[which].chunked.append(Tracked(step, live))
                        holders[which].reference.append(step)
                    }
                case 6 where !holders[which].reference.isEmpty:
                    let index = Int.random(in: 0..<holders[which].reference.count, using: &random)
                    holders[which].chunked[index] = Tracked(-step, live)
                    holders[which].reference[index] = -step
                case 7 where !holders[which].reference.isEmpty:
                    let count = Int.random(in: 0...min(holders[which].reference.count, 5), using: &random)
                    let removed = (0..<count).map { _ in holders[which].chunked.removeLast().value }
                    #expect(removed == holders[which].reference.suffix(count).reversed())
                    holders[which].reference.removeLast(count)
                case 8 where holders.count < 12:
                    holders.append(holders[which])
                case 9 where holders.count > 1:
                    holders.remove(at: which)
                case 10 where holders[which].reference.count < 20_000:
                    let extra = Int.random(in: 0..<1100, using: &random)
                    holders[which].chunked.append(contentsOf: (0..<extra).map { _ in Tracked(step, live) })
                    holders[which].reference.append(contentsOf: repeatElement(step, count: extra))
                default:
                    break
                }
                if step % 300 == 0 {
                    for holder in holders { #expect(holder.chunked.map(\.value) == holder.reference) }
                }
            }
            for holder in holders { #expect(holder.chunked.map(\.value) == holder.reference) }
        }
        #expect(live.count == 0, "every element freed once no copy holds it")
    }

    /// Copies of one array appending on several threads at once: each claims slots of the
    /// last chunk they share, or copies it once another claimed the slot, and each ends
    /// with exactly its own elements.
    @Test func copiesAppendingOnSeveralThreadsKeepTheirOwnElements() async {
        var base = ChunkedArray<Int>()
        base.append(contentsOf: 0..<1_500)
        let shared = base
        let results = await withTaskGroup(of: (Int, [Int]).self) { group in
            for copy in 0..<8 {
                group.addTask {
                    var mine = shared
                    for round in 0..<2_000 {
                        mine.append(copy * 1_000_000 + round)
                        if round % 7 == 6 { mine.removeLast() }
                    }
                    return (copy, Array(mine))
                }
            }
            var all: [(Int, [Int])] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 8)
        for (copy, elements) in results {
            var expected = Array(0..<1_500)
            for round in 0..<2_000 {
                expected.append(copy * 1_000_000 + round)
                if round % 7 == 6 { expected.removeLast() }
            }
            #expect(elements == expected)
        }
        #expect(Array(shared) == Array(0..<1_500))
    }

    /// Random insertions, removals, in-place updates and copies, against `Dictionary`. From
    /// 4 shards, with up to 30,000 keys, the map splits shards dozens of times (whenever its
    /// count passes 16 s²), and copies taken before, during and after splits keep their own
    /// entries. The default map (64 shards) is checked alike with fewer keys.
    @Test(arguments: [(9, 4), (10, 4), (11, 64)] as [(UInt64, Int)])
    func shardedDictionaryBehavesLikeADictionary(seed: UInt64, shards: Int) {
        var random = SplitMix64(seed: seed)
        var sharded = shards == 64 ? ShardedDictionary<String, Int32>() : ShardedDictionary(shardCount: shards)
        var reference: [String: Int32] = [:]
        var snapshots: [(ShardedDictionary<String, Int32>, [String: Int32])] = []
        for step in 0..<60_000 {
            // Mostly new keys first (the map grows through its splits), then mixed.
            let range = step < 30_000 ? 30_000 : 3_000
            let key = "k\(Int.random(in: 0..<range, using: &random))"
            switch Int.random(in: 0..<10, using: &random) {
            case 0...4: sharded[key] = Int32(step); reference[key] = Int32(step)
            case 5: sharded[key] = nil; reference[key] = nil
            case 6: sharded[key, default: -1] += 1; reference[key, default: -1] += 1
            case 7:
                // Decrement; an entry reaching an even value is removed.
                sharded.updateValue(forKey: key) { value in
                    value -= 1
                    return value % 2 != 0
                }
                if var value = reference[key] {
                    value -= 1
                    reference[key] = value % 2 != 0 ? value : nil
                }
            default: if step % 2000 == 0 { snapshots.append((sharded, reference)) }
            }
        }
        if shards == 4 { #expect(sharded.shards.count > 16, "the map split only to \(sharded.shards.count) shards") }
        #expect(sharded.count == reference.count)
        #expect(sharded.shards.map(\.count).reduce(0, +) == reference.count)
        for key in (0..<30_000).map({ "k\($0)" }) {
            #expect(sharded[key] == reference[key])
            // Every entry is in the shard its key maps to, so a lookup finds it.
            if sharded[key] != nil { #expect(sharded.shards[sharded.shard(of: key)][key] != nil) }
        }
        for (copy, expected) in snapshots {
            #expect(copy.count == expected.count)
            #expect(expected.allSatisfy { copy[$0.key] == $0.value })
        }
    }
}

/// How many ``Tracked`` elements are alive.
private final class LiveCount: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    var count: Int { lock.withLock { value } }
    func add(_ delta: Int) { lock.withLock { value += delta } }
}

/// An element that counts itself alive, to find elements freed twice or never.
private final class Tracked {
    let value: Int
    let live: LiveCount
    init(_ value: Int, _ live: LiveCount) {
        self.value = value
        self.live = live
        live.add(1)
    }
    deinit { live.add(-1) }
}
