import DeterministicRandom
@testable import SchemaRuntime
import Testing

/// `LinkList` against a plain array, through random appends, removals, rollbacks of both
/// (newest first, as the journal undoes them) and compactions between "transactions", on
/// both sides of the lengths where it starts indexing positions and splits its index.
@Suite struct LinkListTests {
    enum Undo { case append, removal(key: Int32, index: Int) }

    /// Sizes below indexing, indexed, split but flat (1,000), split and chunked (8,000).
    @Test(arguments: [8, 40, 400, 1000, 8000])
    func randomOperationsMatchAnArray(size: Int) {
        var random = SplitMix64(seed: UInt64(size))
        var list = LinkList()
        var reference: [Int32] = []
        // The sizes past LinkPositions' threshold start long enough for a split index, the
        // longest (6,000 keys) past the length where the keys are chunked too.
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

    /// A list of ``LinkList/chunkingThreshold`` keys or more is chunked: copies appending to,
    /// removing from and restoring into one shared list each keep their own keys, and
    /// compacting it below the threshold makes it flat again.
    @Test func aLongListIsChunkedAndItsCopiesKeepTheirOwnKeys() {
        let threshold = Int32(LinkList.chunkingThreshold)
        var list = LinkList(deduplicating: Int32(0)..<(threshold - 1))
        #expect(!list.storage.isChunked)
        list.appendAssumingAbsent(threshold - 1)
        #expect(list.storage.isChunked)
        let original = list
        var appended = list, removed = list
        for key in threshold..<(threshold + 3_000) { appended.appendAssumingAbsent(key) }
        // Every even key, so that half the storage is tombstones.
        let evens = stride(from: Int32(0), to: threshold, by: 2)
        let positions = evens.map { removed.remove($0) }
        // (Compared apart from #expect, which would print every key of a failing comparison.)
        let removedWhereTheyWere = positions == evens.map { Optional(Int($0)) }
        #expect(removedWhereTheyWere)
        let originalKept = original.keys == ContiguousArray(Int32(0)..<threshold)
        let appendedKept = appended.keys == ContiguousArray(Int32(0)..<(threshold + 3_000))
        let removedKept = removed.keys == ContiguousArray(stride(from: Int32(1), to: threshold, by: 2))
        #expect(originalKept && appendedKept && removedKept)
        #expect(appended.contains(threshold + 10) && !original.contains(threshold + 10) && !removed.contains(4))
        // Undone newest first, as a rollback does.
        var restored = removed
        for (index, key) in zip(positions, evens).reversed() { restored.restore(key, at: index!) }
        let restoredAll = restored == original
        #expect(restoredAll && restored.lastKeys(3) == [threshold - 3, threshold - 2, threshold - 1])
        removed.compactIfSparse()
        #expect(removed.count == Int(threshold) / 2)
        #expect(!removed.storage.isChunked, "compacted below the threshold, the keys are flat again")
        #expect(removed.remove(1) == 0 && removed.contains(3) && !removed.contains(1))
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
