import DeterministicRandom
@testable import SchemaRuntime
import Testing

/// `ChunkedKeyList` against a dictionary, through random inserts, updates and removals that
/// split, empty and merge chunks, in every key pattern the indexes produce.
@Suite struct ChunkedKeyListTests {
    enum Pattern: CaseIterable { case appending, random, descending, clustered }

    @Test(arguments: Pattern.allCases)
    func randomOperationsMatchADictionary(pattern: Pattern) {
        var random = SplitMix64(seed: UInt64(Pattern.allCases.firstIndex(of: pattern)!))
        var list = ChunkedKeyList<Int32>()
        var reference: [Int32: Int32] = [:]
        var next: Int32 = 0
        for step in 0..<30_000 {
            let key: Int32
            switch pattern {
            case .appending: key = Bool.random(using: &random) ? next : Int32.random(in: 0...max(next, 1), using: &random)
            case .random: key = Int32.random(in: 0..<3_000, using: &random)
            case .descending: key = 5_000 - Int32(step / 4) + Int32.random(in: 0..<8, using: &random)
            case .clustered: key = Int32.random(in: 0..<20, using: &random) * 100 + Int32.random(in: 0..<40, using: &random)
            }
            // Grow for the first half, then mostly shrink, so chunks empty and merge.
            let inserting = step < 15_000 ? Int.random(in: 0..<4, using: &random) > 0 : Int.random(in: 0..<4, using: &random) == 0
            if inserting {
                let value = Int32.random(in: 1..<100, using: &random)
                list.insert(key, value)
                reference[key] = value
                if key == next { next += 1 }
            } else {
                #expect(list.remove(key) == (reference.removeValue(forKey: key) != nil))
            }
            if step % 500 == 0 || step == 29_999 {
                #expect(list.isConsistent, "\(pattern) step \(step)")
                #expect(list.keys == reference.keys.sorted(), "\(pattern) step \(step)")
                #expect(list.map(\.value) == reference.keys.sorted().map { reference[$0]! })
                #expect(list.count == reference.count)
            }
            let probe = Int32.random(in: 0..<5_100, using: &random)
            #expect(list.value(of: probe) == reference[probe])
        }
    }

    @Test func removingEverythingLeavesNoChunks() {
        var list = ChunkedKeyList<Void>()
        for key in Int32(0)..<2_000 { list.insert(key, ()) }
        #expect(list.chunkCount == 2_000 / ChunkedKeyList<Void>.maxChunk + 1)
        for key in stride(from: Int32(0), to: 2_000, by: 2) { list.remove(key) }
        #expect(list.isConsistent && list.count == 1_000)
        for key in stride(from: Int32(1), to: 2_000, by: 2) { list.remove(key) }
        #expect(list.isEmpty && list.chunkCount == 0)
    }
}
