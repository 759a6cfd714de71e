import ChatModels
import DeterministicRandom
import Foundation
import SchemaRuntime
import Testing

/// Keyset pagination against a reference: each page must be exactly the entities after the
/// cursor in (sort values, id) order in the data as it is when the page is read, while
/// messages are inserted and deleted between pages; and no message present throughout is
/// skipped or repeated.
@Suite struct PaginationTests {
    /// The orders under test, each with the same order computed by hand.
    struct Order {
        let name: String
        let query: (QueryList<Message>) -> QueryList<Message>
        let precedes: (Message, Message) -> Bool
    }

    static var orders: [Order] { [
        // Through the ordered index on `timestamp desc`, forwards and reversed.
        Order(name: "timestamp desc", query: { $0.sorted(by: \.timestamp.desc) },
              precedes: { ($0.timestamp, $1.id) > ($1.timestamp, $0.id) }),
        Order(name: "timestamp", query: { $0.sorted(by: \.timestamp) },
              precedes: { ($0.timestamp, $0.id) < ($1.timestamp, $1.id) }),
        // No index: the matches are sorted.
        Order(name: "text, timestamp desc", query: { $0.sorted(by: \.text, \.timestamp.desc) },
              precedes: { $0.text != $1.text ? $0.text < $1.text : ($0.timestamp != $1.timestamp ? $0.timestamp > $1.timestamp : $0.id < $1.id) }),
        Order(name: "id only", query: { $0 }, precedes: { $0.id < $1.id }),
    ] }

    /// Filters: none, one checked while walking the index, one an index answers.
    static var filters: [(name: String, apply: (QueryList<Message>) -> QueryList<Message>, matches: (Message) -> Bool)] { [
        ("none", { $0 }, { _ in true }),
        ("text != b", { $0.filter(\.text != "b") }, { $0.text != "b" }),
        ("matches c", { $0.filter(.string(\.text, matches: "c")) }, { $0.text == "c" }),
    ] }

    static func message(_ index: Int, _ random: inout SplitMix64) -> Message {
        // Few distinct timestamps and texts: long runs of ties.
        Message(id: String(format: "m%04d", index), text: ["a", "b", "c"].randomElement(using: &random)!,
                timestamp: Int.random(in: 0..<12, using: &random), author: .id("u"), chat: .id("c"))
    }

    @Test(arguments: 0..<4)
    func pagesStayCorrectWhileEntitiesComeAndGo(seed: UInt64) throws {
        for order in Self.orders {
            for filter in Self.filters {
                var random = SplitMix64(seed: seed)
                var context = Context()
                try User(id: "u", name: "U").save(to: &context)
                var next = 0
                for _ in 0..<150 { try Self.message(next, &random).save(to: &context); next += 1 }
                let present = Set(Message.query(in: context).resolve().map(\.id))
                var deleted = Set<String>()
                var seen: [String] = []
                var cursor: QueryCursor<Message>?
                var last: Message?
                let size = Int.random(in: 1...9, using: &random)
                for pageNumber in 0..<200 {
                    let query = filter.apply(order.query(Message.query(in: context)))
                    let page = query.page(size: size, after: cursor)
                    // The reference: matches in the data as it is now, after the last entity read.
                    let expected = Message.query(in: context).resolve().filter(filter.matches)
                        .sorted(by: order.precedes).filter { message in last.map { order.precedes($0, message) } ?? true }
                    #expect(page.entities.map(\.id) == expected.prefix(size).map(\.id), "\(order.name), \(filter.name), page \(pageNumber)")
                    #expect((page.next == nil) == (expected.count <= size))
                    if let lastEntity = page.entities.last {
                        // `after(_:)` with a limit is the same page.
                        #expect(query.after(lastEntity).limit(size).resolve().map(\.id) == Array(expected.dropFirst(page.entities.count).prefix(size).map(\.id)))
                    }
                    seen += page.entities.map(\.id)
                    last = page.entities.last ?? last
                    guard let nextCursor = page.next else { break }
                    cursor = nextCursor
                    // Between pages: new messages, deleted ones (including the one the cursor names).
                    for _ in 0..<Int.random(in: 0...3, using: &random) { try Self.message(next, &random).save(to: &context); next += 1 }
                    for _ in 0..<Int.random(in: 0...2, using: &random) {
                        guard let victim = Message.query(in: context).resolve().randomElement(using: &random) else { break }
                        deleted.insert(victim.id)
                        try victim.delete(from: &context)
                    }
                    if Int.random(in: 0..<5, using: &random) == 0, let lastEntity = page.entities.last {
                        deleted.insert(lastEntity.id)
                        try? lastEntity.delete(from: &context)
                    }
                }
                #expect(Set(seen).count == seen.count, "\(order.name), \(filter.name): a message was repeated")
                let kept = present.subtracting(deleted).filter { id in filter.matches(Message.query(id, in: context).resolve()!) }
                #expect(kept.isSubset(of: Set(seen)), "\(order.name), \(filter.name): a message present throughout was skipped")
            }
        }
    }

    /// A page of a query with `distinct(on:)` and no index to walk: the first of each value
    /// among the matches after the cursor, in (sort values, id) order, then the page's size.
    /// (Only the first few matches are selected when nothing is de-duplicated; here every
    /// match after the cursor counts.)
    @Test(arguments: 0..<3)
    func aDistinctPageWithoutAnIndexTakesTheFirstOfEachValueAfterTheCursor(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var context = Context()
        try User(id: "u", name: "U").save(to: &context)
        for index in 0..<120 { try Self.message(index, &random).save(to: &context) }
        let order = Self.orders[2]
        let query = order.query(Message.query(in: context)).distinct(on: \.timestamp)
        let sorted = Message.query(in: context).resolve().sorted(by: order.precedes)
        for start in [0, 1, 17, 60, 119] {
            let last = sorted[start]
            var seen = Set<Int>()
            let expected = sorted.filter { order.precedes(last, $0) }.filter { seen.insert($0.timestamp).inserted }
            for size in [1, 3, 12] {
                #expect(query.after(last).limit(size).resolve().map(\.id) == expected.prefix(size).map(\.id), "after \(start), \(size)")
            }
        }
    }

    /// #27: page sizes, limits and cursors come from outside; none of them stops the program.
    @Test func negativeSizesAndForeignCursorsAreAnsweredNotTrapped() throws {
        var random = SplitMix64(seed: 9)
        var context = Context()
        try User(id: "u", name: "U").save(to: &context)
        for index in 0..<30 { try Self.message(index, &random).save(to: &context) }
        let all = Message.query(in: context)
        #expect(all.limit(-3).resolve().isEmpty && all.limit(-3).count() == 0)
        #expect(all.limit(2, offset: -5).resolve().map(\.id) == all.limit(2).resolve().map(\.id))
        #expect(all.sorted(by: \.timestamp).page(size: -1).entities.isEmpty)
        #expect(all.group(by: \.text).limit(-1).count().isEmpty)
        // A cursor from a query sorted otherwise: the page after that entity in this order.
        let byTime = all.sorted(by: \.timestamp).page(size: 5)
        let cursor = try #require(byTime.next)
        let last = try #require(byTime.entities.last)
        let order = Self.orders[2]
        let page = order.query(all).page(size: 4, after: cursor)
        let expected = all.resolve().sorted(by: order.precedes).filter { order.precedes(last, $0) }.prefix(4)
        #expect(page.entities.map(\.id) == expected.map(\.id))
    }

    /// A query sorted by save time pages by save time, then id, as `sorted(by: .updatedAt)`
    /// orders (no save time first, last when descending).
    @Test(arguments: [false, true])
    func pagesOfAQuerySortedByUpdatedAtFollowSaveTimes(descending: Bool) throws {
        var random = SplitMix64(seed: 11)
        var context = Context()
        try User(id: "u", name: "U").save(to: &context)
        for index in 0..<40 { try Self.message(index, &random).save(to: &context) }
        for _ in 0..<15 {
            var message = try #require(Message.query(in: context).resolve().randomElement(using: &random))
            message.text += "!"
            try message.save(to: &context)
        }
        let query = Message.query(in: context).sorted(by: descending ? .updatedAt.desc : .updatedAt)
        var seen: [String] = []
        var cursor: QueryCursor<Message>?
        repeat {
            let page = query.page(size: 7, after: cursor)
            seen += page.entities.map(\.id)
            cursor = page.next
        } while cursor != nil
        let times = Dictionary(uniqueKeysWithValues: Message.query(in: context).resolve().map { ($0.id, context.updatedAt(of: Message.self, id: $0.id)!) })
        // A cursor keeps the save time its entity had: saving that entity again between pages
        // does not move where the next page starts (nothing is skipped).
        var moving = context
        var again: [String] = []
        cursor = nil
        repeat {
            let page = Message.query(in: moving).sorted(by: descending ? .updatedAt.desc : .updatedAt).page(size: 7, after: cursor)
            again += page.entities.map(\.id)
            cursor = page.next
            if let last = page.entities.last { try last.save(to: &moving) }
        } while cursor != nil
        #expect(Set(again).isSuperset(of: times.keys), "a page skipped messages after its cursor's entity was saved again")
        let expected = times.keys.sorted { a, b in
            times[a]! != times[b]! ? (times[a]! < times[b]!) != descending : a < b
        }
        #expect(seen == expected)
    }

    @Test func aPageDeepInAnIndexedOrderStartsAtTheCursor() throws {
        var random = SplitMix64(seed: 1)
        var context = Context()
        try User(id: "u", name: "U").save(to: &context)
        for index in 0..<500 { try Self.message(index, &random).save(to: &context) }
        let query = Message.query(in: context).sorted(by: \.timestamp)
        #expect(query.page(size: 5).entities.count == 5)
        #expect(query.after(Message(id: "m0100", text: "", timestamp: 6)).limit(5).explain().steps
                == ["seek index Message.timestampOrdered reversed", "limit"])
        #expect(query.filter(.string(\.text, matches: "a")).page(size: 5).entities.allSatisfy { $0.text == "a" })
    }
}
