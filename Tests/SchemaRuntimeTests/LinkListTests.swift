import DeterministicRandom
@testable import SchemaRuntime
import Testing

/// `LinkList` against a plain array, through random appends, removals, undos of both, and
/// compactions, on both sides of the length where it starts indexing positions.
@Suite struct LinkListTests {
    @Test(arguments: [8, 40, 400])
    func randomOperationsMatchAnArray(size: Int) {
        var random = SplitMix64(seed: UInt64(size))
        var list = LinkList()
        var reference: [Int32] = []
        for step in 0..<20_000 {
            let key = Int32.random(in: 0..<Int32(size), using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                if !reference.contains(key) {
                    list.appendAssumingAbsent(key)
                    reference.append(key)
                }
            case 4..<8:
                let index = reference.firstIndex(of: key)
                let removal = list.remove(key)
                #expect(removal.removed == (index != nil))
                if let index {
                    #expect(removal.after == (index > 0 ? reference[index - 1] : nil))
                    reference.remove(at: index)
                    // Undo half the time, as a rollback would.
                    if Bool.random(using: &random) {
                        list.insert(key, after: removal.after)
                        reference.insert(key, at: index)
                    }
                }
            case 8:
                if let last = reference.last {
                    #expect(list.removeLast() == last)
                    reference.removeLast()
                }
            default:
                #expect(list.contains(key) == reference.contains(key))
            }
            #expect(list.count == reference.count, "step \(step)")
            if step % 97 == 0 { #expect(Array(list.keys) == reference, "step \(step)") }
        }
        #expect(Array(list.keys) == reference)
    }
}
