import DeterministicRandom
@testable import SchemaRuntime
import Testing

/// The ordered index against a sorted array: random inserts and removes (enough to split and
/// empty chunks), checked after every step for order, ranges and reversed scans.
@Suite struct OrderedIndexStorageTests {
    struct Reference {
        var entries: [(key: [IndexValue], entity: Int32)] = []
        let descending: [Bool]

        func precedes(_ a: (key: [IndexValue], entity: Int32), _ b: (key: [IndexValue], entity: Int32)) -> Bool {
            for index in a.key.indices where a.key[index] != b.key[index] {
                return (a.key[index] < b.key[index]) != descending[index]
            }
            return a.entity < b.entity
        }

        var sorted: [Int32] { entries.sorted(by: precedes).map(\.entity) }
    }

    @Test(arguments: [[false], [true], [false, true], [true, false, false]])
    func randomOperationsMatchASortedArray(descending: [Bool]) {
        var random = SplitMix64(seed: UInt64(descending.count * 7 + (descending.first == true ? 1 : 0)))
        var index = OrderedIndexStorage(descending: descending)
        var reference = Reference(descending: descending)
        var nextEntity: Int32 = 0
        for step in 0..<3000 {
            if reference.entries.isEmpty || Int.random(in: 0..<3, using: &random) > 0 {
                let key = descending.indices.map { _ in IndexValue.int(Int64.random(in: 0..<40, using: &random)) }
                index.insert(.init(key: IndexKey(key), entity: nextEntity))
                reference.entries.append((key, nextEntity))
                nextEntity += 1
            } else {
                let victim = reference.entries.remove(at: Int.random(in: 0..<reference.entries.count, using: &random))
                let removed = index.remove(.init(key: IndexKey(victim.key), entity: victim.entity))
                #expect(removed)
            }
            guard step % 97 == 0 || step == 2999 else { continue }
            #expect(index.count == reference.entries.count)
            #expect(index.allEntities(reversed: false) == reference.sorted)
            #expect(index.chunks.allSatisfy { !$0.isEmpty && $0.count <= OrderedIndexStorage.maxChunk })

            // Ranges on the first field, with random bounds, match a filter of the reference.
            let low = Int64.random(in: -5..<45, using: &random), high = Int64.random(in: -5..<45, using: &random)
            let lowInclusive = Bool.random(using: &random), highInclusive = Bool.random(using: &random)
            let expected = Set(reference.entries.filter { entry in
                guard case .int(let value) = entry.key[0] else { return false }
                return (lowInclusive ? value >= low : value > low) && (highInclusive ? value <= high : value < high)
            }.map(\.entity))
            let found = index.range(equal: [], lower: (.int(low), lowInclusive), upper: (.int(high), highInclusive))
            #expect(Set(found) == expected && found.count == expected.count)

            // Reversed scans are stable: equal keys keep ascending entity order.
            let reversed = index.allEntities(reversed: true)
            let expectedReversed = reference.entries.sorted { a, b in
                a.key != b.key ? reference.precedes(b, a) : a.entity < b.entity
            }.map(\.entity)
            #expect(reversed == expectedReversed)
        }
    }

    @Test func compoundPrefixEqualityAndRange() {
        var index = OrderedIndexStorage(descending: [false, true])
        for (entity, key) in [(0, (1, 5)), (1, (1, 7)), (2, (2, 1)), (3, (1, 6)), (4, (0, 9))].map({ ($0.0, $0.1) }) {
            index.insert(.init(key: IndexKey([.int(Int64(key.0)), .int(Int64(key.1))]), entity: Int32(entity)))
        }
        #expect(index.range(equal: [.int(1)], lower: nil, upper: nil) == [1, 3, 0]) // second field descending
        #expect(index.range(equal: [.int(1)], lower: (.int(6), true), upper: nil) == [1, 3])
        #expect(index.range(equal: [.int(1)], lower: nil, upper: (.int(6), false)) == [0])
        #expect(index.range(equal: [.int(3)], lower: nil, upper: nil) == [])
    }
}
