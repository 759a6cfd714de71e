import Foundation
import SchemaRuntime
import SchemaStore
import Testing

/// `metadata softDelete`: deleting keeps an archive of every entity the delete removes
/// (cascades included), restoring brings them back relinked, and a store keeps the archives.
@Suite struct SoftDeleteTests {
    @Test func deletingArchivesTheEntityAndWhatItCascadesTo() throws {
        var context = Context()
        try Note(id: "n", text: "groceries", parts: .relation([NotePart(id: "p1", body: "milk"), NotePart(id: "p2", body: "eggs")])).save(to: &context)
        try Note(id: "n", text: "groceries").delete(from: &context)
        #expect(context.find(Note.self, id: "n") == nil && NotePart.query(in: context).resolve().isEmpty)
        let note = try #require(context.find(Deleted<Note>.self, id: "n"))
        #expect(note.entity.text == "groceries" && note.entity.$parts.ids == ["p1", "p2"])
        #expect(Deleted<NotePart>.query(in: context).resolve().map(\.entity.body) == ["milk", "eggs"])

        // Restoring the note, then its parts, brings the graph back as it was.
        try note.restore(in: &context)
        for part in Deleted<NotePart>.query(in: context).resolve() { try part.restore(in: &context) }
        #expect(Note.query("n", in: context).with(\.$parts).resolve()?.parts?.map(\.body) == ["milk", "eggs"])
        #expect(Deleted<Note>.query(in: context).resolve().isEmpty && Deleted<NotePart>.query(in: context).resolve().isEmpty)

        // Entities without the option keep no archive.
        try Account(id: "a").save(to: &context)
        try Account(id: "a").delete(from: &context)
        #expect(Deleted<Account>.query(in: context).resolve().isEmpty)
    }

    @Test func aStoreKeepsTheArchivesOfDeletes() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("soft-delete-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let store = try Store(.file(url), schema: GeneratedCodeTestsSchema.self)
        try store.write { context in
            try Note(id: "n", parts: .relation([NotePart(id: "p", body: "b")])).save(to: &context)
        }
        try store.write { context in try Note(id: "n").delete(from: &context) }
        store.close()
        let reopened = try Store(.file(url), schema: GeneratedCodeTestsSchema.self)
        #expect(Deleted<Note>.query(in: reopened.context).resolve().map(\.id) == ["n"])
        #expect(Deleted<NotePart>.query(in: reopened.context).resolve().first?.entity.$note.id == "n")
        reopened.close()
    }
}
