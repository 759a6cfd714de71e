import ChatModels
import DeterministicRandom
import SchemaRuntime
import Testing

/// #27: `filter { ... }` for conditions the predicate language cannot say. It gives the same
/// answers as the equivalent typed predicate and as plain Swift over every entity, whatever
/// it is combined with, and the typed conditions beside it keep their indexes.
@Suite struct ClosureFilterTests {
    static func context(seed: UInt64) throws -> Context {
        var random = SplitMix64(seed: seed)
        var context = Context()
        try User(id: "u", name: "U").save(to: &context)
        for index in 0..<300 {
            let words = (0..<Int.random(in: 1...4, using: &random)).map { _ in ["soup", "salad", "stew", "pie"].randomElement(using: &random)! }
            try Message(id: "m\(index)", text: words.joined(separator: " "), timestamp: Int.random(in: 0..<50, using: &random),
                        author: .id("u"), chat: .id("c")).save(to: &context)
        }
        return context
    }

    @Test(arguments: 0..<5 as Range<UInt64>)
    func closureFiltersAgreeWithPredicatesAndPlainSwift(seed: UInt64) throws {
        let context = try Self.context(seed: seed)
        var random = SplitMix64(seed: seed &+ 100)
        let all = Message.query(in: context).resolve()
        for _ in 0..<20 {
            let t = Int.random(in: 0..<50, using: &random), length = Int.random(in: 3..<20, using: &random)
            // Alone: the same as the typed predicate, in the same order.
            #expect(Message.query(in: context).filter { $0.timestamp >= t }.resolve().map(\.id)
                    == Message.filter(\.timestamp >= t, in: context).resolve().map(\.id))
            // Beside an indexed condition, in both orders, with a sort and a limit.
            let expected = all.filter { $0.timestamp < t && $0.text.count > length }
                .enumerated().sorted { ($0.element.timestamp, $0.offset) > ($1.element.timestamp, $1.offset) }.map(\.element.id)
            let query = Message.filter(\.timestamp < t, in: context).filter { $0.text.count > length }.sorted(by: \.timestamp.desc)
            #expect(query.resolve().map(\.id).sorted() == expected.sorted())
            #expect(query.limit(5).resolve().map(\.timestamp) == Array(expected.prefix(5)).map { id in all.first { $0.id == id }!.timestamp })
            #expect(query.count() == expected.count)
            #expect(query.explain().description.contains("index"))
            // Inside || and !, and with full text.
            let either = Message.filter(\.timestamp == t || .custom { $0.text.hasPrefix("pie") }, in: context)
            #expect(either.resolve().map(\.id) == all.filter { $0.timestamp == t || $0.text.hasPrefix("pie") }.map(\.id))
            let neither = Message.filter(!.custom { $0.text.contains("stew") } && .string(\.text, matches: "soup"), in: context)
            #expect(Set(neither.resolve().map(\.id)) == Set(all.filter { !$0.text.contains("stew") && $0.text.split(separator: " ").contains("soup") }.map(\.id)))
        }
    }
}
