import Foundation
import SchemaRuntime
import Testing

/// Issue #7 regressions that need field types the chat domain does not have.
@Suite struct GeneratedRegressionTests {
    // #7.1 (compound): a unique index with a nil field cannot answer the lookup.
    @Test func compoundUniqueIndexWithANilField() throws {
        var context = Context()
        try [Scored(id: "1", code: nil, rank: 1), Scored(id: "2", code: "x", rank: 1), Scored(id: "3", email: "e")].save(to: &context)
        #expect(Scored.filter(\.code == nil && \.rank == 1, in: context).resolve().map(\.id) == ["1"])
        #expect(Scored.filter(\.email == nil, in: context).resolve().map(\.id) == ["1", "2"])
        #expect(Scored.filter(\.email == nil, in: context).count() == 2)
    }

    /// Ids whose score satisfies `predicate`, computed with a scan over plain values.
    static func scan(_ context: Context, _ predicate: (Double) -> Bool) -> [String] {
        Scored.query(in: context).resolve().filter { predicate($0.score) }.map(\.id)
    }

    // #7.2: NaN has one place in the total order everywhere keys are compared and removed.
    @Test func nanInAnOrderedIndex() throws {
        var context = Context()
        try (0..<50).map { Scored(id: "\($0)", score: Double($0)) }.save(to: &context)
        try Scored(id: "nan", score: .nan).save(to: &context)
        let above = Scored.filter(\.score > 0, in: context)
        #expect(above.resolve().map(\.id) == Scored.query(in: context).filter(\.score > 0).resolve().map(\.id))
        #expect(above.count() == above.resolve().count)
        // NaN sorts above every number and equals itself (as in SQL databases).
        #expect(above.resolve().last?.id == "nan")
        #expect(Scored.filter(\.score == .nan, in: context).resolve().map(\.id) == ["nan"])
        #expect(Scored.filter(\.score < 50, in: context).count() == 50)
        // Moving NaN to 2 leaves no stale entry.
        try Scored(id: "nan", score: 2).save(to: &context)
        #expect(Scored.filter(\.score == 2, in: context).resolve().map(\.id) == ["2", "nan"])
        #expect(Scored.filter(\.score >= 0, in: context).count() == 51)
        try Scored(id: "nan", score: .nan).save(to: &context)
        try Scored(id: "nan", score: .nan).delete(from: &context)
        #expect(Scored.filter(\.score >= 0, in: context).count() == Scored.filter(\.score >= 0, in: context).resolve().count)
        try Scored(id: "nan", score: .nan).save(to: &context)
        for index in 0..<50 { try Scored(id: "\(index)", score: Double(100 + index)).save(to: &context) }
        #expect(Scored.filter(\.score < 50, in: context).resolve().isEmpty)
        let sorted = Scored.query(in: context).sorted(by: \.score).resolve().map(\.id)
        #expect(sorted.count == 51 && sorted.last == "nan")
        #expect(Scored.query(in: context).sorted(by: \.score.desc).resolve().first?.id == "nan")
    }

    // #7.9: an explicit nil survives Codable even when the field's default is not nil.
    @Test func codableKeepsNilForOptionalsWithDefaults() throws {
        let original = Scored(id: "1", maybe: nil)
        let decoded = try JSONDecoder().decode(Scored.self, from: JSONEncoder().encode(original))
        #expect(decoded.maybe == nil)
        // A payload without the key takes the schema default.
        let sparse = try JSONDecoder().decode(Scored.self, from: Data(#"{"id":"2"}"#.utf8))
        #expect(sparse.maybe == 5)
    }

    // #7.10: with `.plain`, an embedded entity with only an id stays an entity.
    @Test func plainCodableKeepsIdOnlyEntitiesAsEntities() throws {
        let post = Post(id: "p", labels: .relation([Label(id: "l1"), Label(id: "l2", text: "x")]), pinned: .relation(Label(id: "l3")))
        let decoded = try JSONDecoder().decode(Post.self, from: JSONEncoder().encode(post))
        var original = Context(), roundTripped = Context()
        try post.save(to: &original)
        try decoded.save(to: &roundTripped)
        #expect(original.ids(of: Label.self) == ["l1", "l2", "l3"])
        #expect(roundTripped.ids(of: Label.self) == original.ids(of: Label.self))
        #expect(roundTripped.count(of: Label.self) == original.count(of: Label.self))
        // Id references stay id references.
        let references = Post(id: "q", labels: .ids(["l1"]), pinned: .id("l3"))
        let again = try JSONDecoder().decode(Post.self, from: JSONEncoder().encode(references))
        #expect(again.$labels == .ids(["l1"]) && again.$pinned == .id("l3"))
    }
}

/// #30: two ordered indexes over the same fields in different directions are different
/// orders; each sort is served by the index that has it, forwards or backwards, with the
/// answers of a plain sort.
@Suite struct DirectionalIndexTests {
    @Test func eachOrderUsesItsIndex() throws {
        var context = Context()
        for index in 0..<200 { try Ranked(id: String(format: "r%03d", index), rank: index % 7, score: (index * 37) % 11).save(to: &context) }
        let all = Ranked.query(in: context).resolve()
        func expected(_ rankDescending: Bool, _ scoreDescending: Bool) -> [String] {
            all.enumerated().sorted { a, b in
                if a.element.rank != b.element.rank { return (a.element.rank < b.element.rank) != rankDescending }
                if a.element.score != b.element.score { return (a.element.score < b.element.score) != scoreDescending }
                return a.offset < b.offset
            }.map(\.element.id)
        }
        let cases: [(QueryList<Ranked>, Bool, Bool, String)] = [
            (Ranked.query(in: context).sorted(by: \.rank, \.score), false, false, "rankScoreOrdered"),
            (Ranked.query(in: context).sorted(by: \.rank.desc, \.score.desc), true, true, "rankScoreOrdered"),
            (Ranked.query(in: context).sorted(by: \.rank.desc, \.score), true, false, "rankDescScoreOrdered"),
            (Ranked.query(in: context).sorted(by: \.rank, \.score.desc), false, true, "rankDescScoreOrdered"),
        ]
        for (query, rankDescending, scoreDescending, index) in cases {
            #expect(query.resolve().map(\.id) == expected(rankDescending, scoreDescending))
            #expect(query.explain().description.contains(index), "\(query.explain())")
        }
    }
}
