import DeterministicRandom
import SchemaRuntime
@testable import SchemaStore
import Testing

/// What a write read before the lock (``WriteReadSet``), checked against a plain model: a
/// set of (name, id) pairs and a set of names read whole, where a name past
/// ``WriteReadSet/idsPerName`` ids counts as read whole.
struct WriteReadSetTests {
    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomReadsMatchTheModel(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var reads = WriteReadSet()
        var pairs: Set<[String]> = [], whole: Set<String> = []
        let names = ["User", "Chat", "Message", "Chat.messages"]
        for _ in 0..<2_000 {
            let name = names[Int.random(in: 0..<names.count, using: &random)]
            if Int.random(in: 0..<100, using: &random) == 0 {
                reads.readAll(of: name)
                whole.insert(name)
                continue
            }
            let ids = (0..<Int.random(in: 0..<4, using: &random)).map { _ in StoredValue.text("id\(Int.random(in: 0..<50, using: &random))") }
            reads.read(ids, of: name)
            if !whole.contains(name) { ids.forEach { pairs.insert([name, "\($0)"]) } }
        }
        #expect(reads.wholeNames == whole)
        let (readNames, readIDs) = reads.pairs
        #expect(Set(zip(readNames, readIDs).map { [$0, "\($1)"] }) == pairs.filter { !whole.contains($0[0]) })
        #expect(readNames.count == readIDs.count && readNames == readNames.sorted(), "pairs come by name")
        #expect(reads.isEmpty == (pairs.isEmpty && whole.isEmpty))
    }

    @Test func aNameReadPastItsBoundCountsAsReadWhole() {
        var reads = WriteReadSet()
        reads.read((0..<WriteReadSet.idsPerName).map { StoredValue.integer(Int64($0)) }, of: "Message")
        #expect(reads.wholeNames.isEmpty && reads.pairs.ids.count == WriteReadSet.idsPerName)
        reads.read([.integer(-1)], of: "Message")
        #expect(reads.wholeNames == ["Message"] && reads.pairs.ids.isEmpty)
        // Further ids there add nothing.
        reads.read([.integer(-2)], of: "Message")
        #expect(reads.pairs.ids.isEmpty)
    }
}
