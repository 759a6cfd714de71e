import DeterministicRandom
@testable import SchemaRuntime
import Testing

/// `PartialOrder.first` against sorting everything and taking a prefix: every count from
/// none to more than there are, over values with many ties (broken by position).
@Suite struct PartialOrderTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func theFirstFewAreTheSortedPrefix(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for _ in 0..<200 {
            let total = Int.random(in: 0..<300, using: &random)
            let values = (0..<total).map { _ in Int.random(in: 0..<20, using: &random) }
            let descending = Bool.random(using: &random)
            func precedes(_ a: Int, _ b: Int) -> Bool {
                values[a] != values[b] ? (values[a] < values[b]) != descending : a < b
            }
            let sorted = (0..<total).sorted(by: precedes)
            for count in [0, 1, 2, total / 3, total - 1, total, total + 5] where count >= 0 {
                #expect(PartialOrder.first(count, of: total, by: precedes) == Array(sorted.prefix(count)))
            }
        }
    }
}
