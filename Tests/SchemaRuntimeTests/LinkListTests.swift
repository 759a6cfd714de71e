import DeterministicRandom
@testable import SchemaRuntime
import Testing

/// `LinkList` against a plain array, through random appends, removals, rollbacks of both
/// (newest first, as the journal undoes them) and compactions between "transactions", on
/// both sides of the lengths where it starts indexing positions and splits its index.
@Suite struct LinkListTests {
    enum Undo { case append, removal(key: Int32, index: Int) }

    @Test(arguments: [8, 40, 400, 8000])
    func randomOperationsMatchAnArray(size: Int) {
        var random = SplitMix64(seed: UInt64(size))
        var list = LinkList()
        var reference: [Int32] = []
        // The longest starts long enough for a split index (LinkPositions), and drifts
        // below and above the length where it splits.
        for key in 0..<(size > LinkPositions.shardingThreshold ? Int32(size * 3 / 4) : 0) {
            list.appendAssumingAbsent(key)
            reference.append(key)
        }
        // A copy taken now and then (as a snapshot shares a graph's lists) must keep its
        // keys while the list is written: each write copies what it changes.
        var snapshot = (list: list, keys: reference)
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
            if step % 1000 == 0 {
                #expect(Array(snapshot.list.keys) == snapshot.keys, "step \(step)")
                #expect(snapshot.keys.allSatisfy(snapshot.list.contains), "step \(step)")
                #expect(!snapshot.list.contains(Int32(size)) && snapshot.list.count == snapshot.keys.count)
                snapshot = (list, reference)
            }
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
