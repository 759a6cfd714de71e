import DeterministicRandom
@testable import SchemaRuntime
import Testing

/// The ordered index against a sorted array: random inserts and removes (enough to split and
/// empty chunks and groups), checked every 97 steps for order, ranges, counts, runs and
/// reversed scans, and copies taken along the way for what they held.
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

    /// Each field's direction, and the index's chunk and group sizes: the default ones, and
    /// small ones, so that 3,000 steps split and empty chunks and groups many times.
    static let shapes: [([Bool], chunk: Int, group: Int)] = [
        ([false], 512, 64), ([true], 512, 64), ([false, true], 512, 64), ([true, false, false], 512, 64),
        ([false], 4, 2), ([true], 3, 3), ([false, true], 8, 4), ([true, false, false], 2, 2),
    ]

    @Test(arguments: shapes)
    func randomOperationsMatchASortedArray(descending: [Bool], chunk: Int, group: Int) {
        var random = SplitMix64(seed: UInt64(descending.count * 7 + (descending.first == true ? 1 : 0) + chunk * 1_000))
        var index = OrderedIndexStorage(descending: descending, maxChunk: chunk, maxGroup: group)
        // Copies taken along the way keep what they held while the index changes on.
        var copies: [(index: OrderedIndexStorage, entities: [Int32])] = []
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
            #expect(index.groups.allSatisfy { group in
                !group.isEmpty && group.count <= index.maxGroup && group.allSatisfy { !$0.isEmpty && $0.count <= index.maxChunk }
            })
            copies.append((index, reference.sorted))

            // Ranges on the first field, with random bounds, match a filter of the reference.
            let low = Int64.random(in: -5..<45, using: &random), high = Int64.random(in: -5..<45, using: &random)
            let lowInclusive = Bool.random(using: &random), highInclusive = Bool.random(using: &random)
            let expected = Set(reference.entries.filter { entry in
                guard case .int(let value) = entry.key[0] else { return false }
                return (lowInclusive ? value >= low : value > low) && (highInclusive ? value <= high : value < high)
            }.map(\.entity))
            let found = index.range(equal: [], lower: (.int(low), lowInclusive), upper: (.int(high), highInclusive))
            #expect(Set(found) == expected && found.count == expected.count)
            let range = OrderedIndexStorage.Range(equal: [], lower: (.int(low), lowInclusive), upper: (.int(high), highInclusive))
            #expect(index.count(in: range) == expected.count)

            // Runs from a key, forwards and backwards, cover the keys from it in visiting order.
            let from = IndexKey([IndexValue.int(Int64.random(in: -2..<42, using: &random))] + descending.dropFirst().map { _ in .int(0) })
            var forwards: [Int32] = [], backwards: [Int32] = []
            index.visitRuns(from: from, reversed: false) { _, run in forwards += run; return true }
            index.visitRuns(from: from, reversed: true) { _, run in backwards += run; return true }
            let startsAt = reference.entries.filter { index.compareKeys(IndexKey($0.key), from) >= 0 }
            let endsAt = reference.entries.filter { index.compareKeys(IndexKey($0.key), from) <= 0 }
            #expect(Set(forwards) == Set(startsAt.map(\.entity)) && forwards.count == startsAt.count)
            #expect(Set(backwards) == Set(endsAt.map(\.entity)) && backwards.count == endsAt.count)

            // Reversed scans are stable: equal keys keep ascending entity order.
            let reversed = index.allEntities(reversed: true)
            let expectedReversed = reference.entries.sorted { a, b in
                a.key != b.key ? reference.precedes(b, a) : a.entity < b.entity
            }.map(\.entity)
            #expect(reversed == expectedReversed)
        }
        for (copy, entities) in copies { #expect(copy.allEntities(reversed: false) == entities) }
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
