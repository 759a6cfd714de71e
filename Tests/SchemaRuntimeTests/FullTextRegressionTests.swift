import ChatModels
import Foundation
import SchemaRuntime
import Testing

/// Issue #8 papercuts in text queries. Each is checked with the full-text index
/// (`User` indexes `name, username`) and without (a query over ids never uses an index).
@Suite struct FullTextRegressionTests {
    static func context() throws -> Context {
        var context = Context()
        try [
            User(id: "1", name: "İstanbul Ada", username: "ada"),
            User(id: "2", name: "Grace", username: nil),
            User(id: "3", name: "istanbul", username: "İSTANBUL"),
            User(id: "4", name: "Linus", username: "torvalds"),
        ].save(to: &context)
        return context
    }

    /// Ids the predicate selects with the planner's choice of index, and with a scan.
    static func both(_ predicate: SchemaRuntime.Predicate<User>, in context: Context) -> (indexed: [String], scanned: [String]) {
        (User.filter(predicate, in: context).resolve().map(\.id).sorted(),
         User.query(["1", "2", "3", "4"], in: context).filter(predicate).resolve().map(\.id).sorted())
    }

    @Test func dottedCapitalIFoldsToI() throws {
        let context = try Self.context()
        for predicate in [SchemaRuntime.Predicate<User>.string(\.name, matches: "istanbul"), .string(\.name, contains: "istan"), .string(\.name, hasPrefix: "ISTANBUL")] {
            let result = Self.both(predicate, in: context)
            #expect(result.indexed == ["1", "3"])
            #expect(result.scanned == result.indexed)
        }
    }

    @Test func aQueryWithoutWordsMatchesNothing() throws {
        let context = try Self.context()
        for query in ["", "   ", "?!", "—"] {
            let result = Self.both(.string(\.name, \.username, matches: query), in: context)
            #expect(result.indexed == [] && result.scanned == [], "query \(query.debugDescription)")
            #expect(User.filter(.string(\.name, matches: query), in: context).count() == 0)
        }
    }

    @Test func optionalStringFieldsTakeEveryStringPredicate() throws {
        let context = try Self.context()
        #expect(Self.both(.string(\.username, matches: "istanbul"), in: context) == (["3"], ["3"]))
        #expect(Self.both(.string(\.username, contains: "orv"), in: context) == (["4"], ["4"]))
        #expect(Self.both(.string(\.username, hasPrefix: "AD"), in: context) == (["1"], ["1"]))
        #expect(Self.both(.string(\.username, hasSuffix: "ds"), in: context) == (["4"], ["4"]))
        // nil has no text: it contains nothing, so the negation holds for it.
        #expect(Self.both(.string(\.username, contains: ""), in: context).indexed == ["1", "3", "4"])
        #expect(Self.both(.string(\.username, notContains: "a"), in: context).indexed == ["2"])
        #expect(Self.both(.string(\.username, notContains: "orv"), in: context).indexed == ["1", "2", "3"])
    }

    @Test func multiFieldMatchesUsesTheIndexOverThoseFields() throws {
        let context = try Self.context()
        let query = User.filter(.string(\.name, \.username, matches: "ada istanbul"), in: context)
        #expect(query.resolve().map(\.id) == ["1"])
        #expect(query.explain().description.contains("full-text index"))
    }

    /// #27: negative limits and offsets come from outside too; they read as 0, never trap.
    @Test func negativeLimitsAndOffsetsReadAsZero() throws {
        let context = try Self.context()
        #expect(User.query(in: context).limit(1, offset: -1).resolve().map(\.id) == ["1"])
        #expect(User.query(in: context).limit(-1).resolve().isEmpty)
    }
}
