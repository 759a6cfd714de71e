import DeterministicRandom
@testable import SchemaRuntime
import Testing

/// `ChunkedArray` and `ShardedDictionary` against `Array` and `Dictionary`: random
/// operations, with copies taken along the way that must never see later writes.
@Suite struct ChunkedStorageTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func chunkedArrayBehavesLikeAnArray(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var chunked = ChunkedArray<Int>()
        var reference: [Int] = []
        var snapshots: [(ChunkedArray<Int>, [Int])] = []
        for step in 0..<10_000 {
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                chunked.append(step)
                reference.append(step)
            case 5 where !reference.isEmpty:
                let index = Int.random(in: 0..<reference.count, using: &random)
                chunked[index] = -step
                reference[index] = -step
            case 6 where !reference.isEmpty:
                let count = Int.random(in: 0...min(reference.count, 2000), using: &random)
                chunked.removeLast(count)
                reference.removeLast(count)
            case 7 where snapshots.count < 40:
                snapshots.append((chunked, reference))
            default:
                let extra = Int.random(in: 0..<1000, using: &random)
                chunked.append(contentsOf: repeatElement(step, count: extra))
                reference.append(contentsOf: repeatElement(step, count: extra))
            }
            #expect(chunked.count == reference.count)
        }
        #expect(Array(chunked) == reference)
        for (copy, expected) in snapshots { #expect(Array(copy) == expected) }
        #expect(Array(ChunkedArray(repeating: 7, count: 5000)) == Array(repeating: 7, count: 5000))
    }

    @Test func shardedDictionaryBehavesLikeADictionary() {
        var random = SplitMix64(seed: 9)
        var sharded = ShardedDictionary<String, Int32>()
        var reference: [String: Int32] = [:]
        var snapshots: [(ShardedDictionary<String, Int32>, [String: Int32])] = []
        for step in 0..<20_000 {
            let key = "k\(Int.random(in: 0..<3000, using: &random))"
            switch Int.random(in: 0..<4, using: &random) {
            case 0: sharded[key] = Int32(step); reference[key] = Int32(step)
            case 1: sharded[key] = nil; reference[key] = nil
            case 2: sharded[key, default: -1] += 1; reference[key, default: -1] += 1
            default: if snapshots.count < 40 { snapshots.append((sharded, reference)) }
            }
        }
        for key in (0..<3000).map({ "k\($0)" }) {
            #expect(sharded[key] == reference[key])
            for (copy, expected) in snapshots.suffix(3) { #expect(copy[key] == expected[key]) }
        }
    }
}
