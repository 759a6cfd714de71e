import Foundation
import SchemaRuntime
import Testing

/// Uses the types the build plugin generates from AllConstructs.schema in this target.
@Suite struct GeneratedCodeTests {
    @Test func schemaDefaultsBecomeInitializerDefaults() {
        let document = Document(id: UUID(), title: "T", createdAt: Date(timeIntervalSince1970: 0))
        #expect(document.body == "" && document.pageCount == 1 && document.score == 0.5 && document.ratio == 1.25)
        #expect(document.isDraft && document.tags.isEmpty && document.counts.isEmpty && document.state == .draft)
        #expect(document.default == 0 && document.class == nil && document.link == nil)
    }

    @Test func enumsAreComparableInDeclarationOrderAndKeepRawValues() {
        #expect(DocumentState.draft < .published && DocumentState.published < .archived)
        #expect(DocumentState.published.rawValue == "live")
        #expect(Priority.high.rawValue == 10 && Priority.low < .high)
        #expect(DocumentState.allCases.count == 3)
    }

    @Test func fragmentStrategyFromTheSchema() throws {
        var context = Context()
        let id = UUID()
        let early = Date(timeIntervalSince1970: 10), late = Date(timeIntervalSince1970: 20)
        try Document(id: id, title: "A", createdAt: late, link: URL(string: "https://a.example"), tags: ["x"], folder: .id(1)).save(to: &context)
        // merge fragment: patch(link, price), append(tags), lastWriteWins(createdAt)
        try Document(id: id, title: "B", createdAt: early, tags: ["y"]).save(to: &context, options: .fragment)
        let stored = try #require(context.find(Document.self, id: id))
        // lastWriteWins keeps the stored entity, whose createdAt is later.
        #expect(stored.title == "A" && stored.createdAt == late)
        try Document(id: id, title: "C", createdAt: late, tags: ["z"]).save(to: &context, options: .fragment)
        let merged = try #require(context.find(Document.self, id: id))
        #expect(merged.title == "C" && merged.link?.absoluteString == "https://a.example" && merged.tags == ["x", "z"])
    }

    @Test func relationsAcrossEntitiesAndAccessLevels() throws {
        var context = Context()
        let document = Document(id: UUID(), title: "T", createdAt: Date(), folder: .relation(Folder(id: 1, name: "Inbox")),
                                sections: .relation([Section(id: "s1", heading: "Intro")]), cover: .id("s1"))
        try document.save(to: &context)
        let folder = Folder.query(1, in: context).with(\.$documents) { $0.with(\.$sections).with(\.$cover) }.resolve()
        #expect(folder?.documents?.first?.sections?.map(\.heading) == ["Intro"])
        #expect(folder?.documents?.first?.cover?.id == "s1")
        try document.delete(from: &context)
        #expect(context.count(of: Section.self) == 0) // cascade
        #expect(context.count(of: Folder.self) == 1)
    }

    @Test func valueStructsDecodeMissingDefaults() throws {
        let metadata = try JSONDecoder().decode(Metadata.self, from: Data(#"{"author": "Ann"}"#.utf8))
        #expect(metadata == Metadata(author: "Ann", keywords: [], priority: nil))
    }
}
