import Foundation
import SchemaRuntime
import SchemaStore
import Testing

/// Every field type and relation kind of the schemas in this target, saved to a store file,
/// reopened, and compared with the graph it came from: rows, links in order, save times and
/// index answers.
@Suite struct StoreRoundTripTests {
    /// Every stored entity of every schema entity type, with relations as ids in order, as JSON lines.
    static func snapshot(_ context: Context) throws -> [String] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.relationEncodingStrategy = .keyedContainer
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        var lines: [String] = []
        func add<Entity: PersistentEntity>(_ type: Entity.Type) throws {
            for entity in Entity.queryAll(with: .ids, in: context).resolve() {
                let encodable = entity as! any Encodable
                let json = String(decoding: try Self.encode(encodable, with: encoder), as: UTF8.self)
                let savedAt = context.updatedAt(of: Entity.self, id: entity.id).map { " saved \($0.timeIntervalSinceReferenceDate)" } ?? ""
                lines.append("\(Entity.entityName) \(json)\(savedAt)")
            }
        }
        for type in GeneratedCodeTestsSchema.entities { try add(type) }
        return lines.sorted()
    }

    private static func encode<Value: Encodable>(_ value: Value, with encoder: JSONEncoder) throws -> Data {
        try encoder.encode(value)
    }

    static let documentA = UUID(uuidString: "00000000-0000-0000-0000-00000000000A")!
    static let documentB = UUID(uuidString: "00000000-0000-0000-0000-00000000000B")!

    static func seed(_ context: inout Context) throws {
        try Document(
            id: documentA, title: "Quarterly report", body: "Numbers and words", pageCount: -3, size: .max, score: -0.0, ratio: .nan,
            isDraft: false, createdAt: Date(timeIntervalSinceReferenceDate: 123_456.789_012_345), link: URL(string: "https://example.com/a?b=c#d"),
            payload: Data([0, 1, 2, 255]), price: Decimal(string: "12345678901234567890.123456789"), tags: ["q3", "Ünïcode ✓"],
            counts: ["a": 1, "b": -2], state: .published, metadata: Metadata(author: "Ann", keywords: ["x"], priority: .high),
            owner: Owner(name: "Ops"), default: 7, class: "top",
            folder: .relation(Folder(id: 1, name: "Inbox")),
            sections: .relation([Section(id: "s1", heading: "One"), Section(id: "s2", heading: "Two")]),
            cover: .id("s2")
        ).save(to: &context)
        try Document(
            id: documentB, title: "Empty things", size: .min, score: 1e308, createdAt: Date(timeIntervalSinceReferenceDate: -5),
            payload: Data(), price: nil, folder: .relation(Folder(id: 2, name: "Archive")), related: .ids([documentA])
        ).save(to: &context)
        // A one-way to-many in order, after the fact.
        var a = try #require(context.find(Document.self, id: documentA))
        a.$related = .ids([documentB, documentA])
        try a.save(to: &context)
        try Revision(id: 1, note: nil, document: .id(documentA)).save(to: &context)
        try Revision(id: 2, note: "second", document: .id(documentB)).save(to: &context)
        // One-to-one pairs (only one side stored), self-relations, SQL keywords as names.
        try Person(id: "p1", passport: .relation(Passport(id: "pp1"))).save(to: &context)
        try TreeNode(id: "root", children: .relation([TreeNode(id: "leaf1"), TreeNode(id: "leaf2")])).save(to: &context)
        try ChainNode(id: 1, label: "head", next: .relation(ChainNode(id: 2, next: .id(3)))).save(to: &context)
        try KeywordRelations(id: "k1", class: .relation(KeywordNames(id: "n1"))).save(to: &context)
    }

    @Test func everyFieldTypeAndRelationKindSurvivesReopening() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("roundtrip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("all.sqlite")

        let store = try Store(.file(url), schema: GeneratedCodeTestsSchema.self)
        try store.write { try Self.seed(&$0) }
        let original = store.context
        store.close()
        let reopened = try Store(.file(url), schema: GeneratedCodeTestsSchema.self).context

        let expected = try Self.snapshot(original)
        #expect(expected.count > 15)
        let actual = try Self.snapshot(reopened)
        #expect(actual == expected, "\(zip(actual, expected).first { $0 != $1 } as Any)")
        // Field values bit for bit (the JSON above rounds some).
        let a = try #require(reopened.find(Document.self, id: Self.documentA))
        let b = try #require(original.find(Document.self, id: Self.documentA))
        #expect(a.score.bitPattern == b.score.bitPattern && a.ratio.bitPattern == b.ratio.bitPattern && a.ratio.isNaN)
        #expect(a.score.sign == .minus && a.size == .max && a.payload == Data([0, 1, 2, 255]))
        #expect(a.createdAt == b.createdAt && a.price == b.price && a.metadata == b.metadata && a.owner == b.owner)
        #expect(reopened.find(Document.self, id: Self.documentB)?.payload == Data())
        // Index answers: full text, ordered (descending), hash, unique.
        for context in [original, reopened] {
            #expect(Document.filter(.string(\.title, \.body, matches: "words"), in: context).resolve().map(\.id) == [Self.documentA])
            #expect(Document.query(in: context).sorted(by: \.createdAt.desc).resolve().map(\.id) == [Self.documentA, Self.documentB])
            #expect(Document.filter(\.state == .published, in: context).resolve().map(\.id) == [Self.documentA])
            #expect(Document.filter(\.title == "Empty things", in: context).resolve().map(\.id) == [Self.documentB])
        }
        // The derived side of a one-to-one pair and of a one-to-many pair is back.
        #expect(Passport.query("pp1", in: reopened).with(\.$owner).resolve()?.owner?.id == "p1")
        #expect(TreeNode.query("leaf2", in: reopened).with(\.$parent).resolve()?.parent?.id == "root")
        #expect(Document.query(Self.documentA, in: reopened).with(\.$related).resolve()?.related?.map(\.id) == [Self.documentB, Self.documentA])
    }
}
