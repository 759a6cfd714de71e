import DeterministicRandom
@testable import SchemaRuntime
import Testing

/// `LinkList` against a plain array, through random appends, removals, rollbacks of both
/// (newest first, as the journal undoes them) and compactions between "transactions", on
/// both sides of the length where it starts indexing positions.
@Suite struct LinkListTests {
    enum Undo { case append, removal(key: Int32, index: Int) }

    @Test(arguments: [8, 40, 400])
    func randomOperationsMatchAnArray(size: Int) {
        var random = SplitMix64(seed: UInt64(size))
        var list = LinkList()
        var reference: [Int32] = []
        // The running "transaction": its undo records and the reference before it.
        var undo: [Undo] = [], before = reference
        for step in 0..<20_000 {
            let key = Int32.random(in: 0..<Int32(size), using: &random)
            switch Int.random(in: 0..<12, using: &random) {
            case 0..<4:
                if !reference.contains(key) {
                    list.appendAssumingAbsent(key)
                    reference.append(key)
                    undo.append(.append)
                }
            case 4..<8:
                let index = reference.firstIndex(of: key)
                let removed = list.remove(key)
                #expect((removed != nil) == (index != nil))
                if let index, let removed {
                    reference.remove(at: index)
                    undo.append(.removal(key: key, index: removed))
                }
            case 8:
                // Commit: nothing can be undone any more, so tombstones may go.
                undo = []
                before = reference
                list.compactIfSparse()
            case 9:
                // Roll back: undo newest first.
                while let record = undo.popLast() {
                    switch record {
                    case .append: list.removeLast()
                    case .removal(let key, let index): list.restore(key, at: index)
                    }
                }
                reference = before
            default:
                #expect(list.contains(key) == reference.contains(key))
            }
            #expect(list.count == reference.count, "step \(step)")
            if step % 97 == 0 { #expect(Array(list.keys) == reference, "step \(step)") }
        }
        #expect(Array(list.keys) == reference)
    }

    /// Removing a long list from the front, the usual order for old messages, stays O(1) per
    /// removal: no scan over the tombstones left by earlier ones.
    @Test func removingFromTheFrontLeavesTombstonesThenCompacts() {
        var list = LinkList(deduplicating: Int32(0)..<10_000)
        for key in Int32(0)..<6_000 { #expect(list.remove(key) == Int(key)) }
        #expect(list.count == 4_000 && list.keys.first == 6_000)
        list.compactIfSparse()
        #expect(list.keys == ContiguousArray(Int32(6_000)..<10_000))
        #expect(list.remove(6_000) == 0)
    }
}
