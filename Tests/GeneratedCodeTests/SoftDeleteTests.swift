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

    /// Both residencies: a delete on demand archives what its cascade reaches, links included,
    /// reading the targets before it decides which are stored.
    @Test(arguments: [Store.Residency.resident, .onDemand])
    func aStoreKeepsTheArchivesOfDeletes(residency: Store.Residency) throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("soft-delete-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let store = try Store(.file(url), schema: GeneratedCodeTestsSchema.self, options: .init(residency: residency))
        try store.write { context in
            try Note(id: "n", parts: .relation([NotePart(id: "p", body: "b")])).save(to: &context)
        }
        try store.write { context in try Note(id: "n").delete(from: &context) }
        store.close()
        let reopened = try Store(.file(url), schema: GeneratedCodeTestsSchema.self, options: .init(residency: residency))
        #expect(Deleted<Note>.query(in: reopened.context).resolve().map(\.id) == ["n"])
        #expect(Deleted<NotePart>.query(in: reopened.context).resolve().first?.entity.$note.id == "n")
        #expect(Deleted<Note>.query(in: reopened.context).resolve().first?.entity.$parts.ids == ["p"])
        // Restoring relinks them, and a restored part's required note is there again.
        try reopened.write { context in
            for note in Deleted<Note>.query(in: context).resolve() { try note.restore(in: &context) }
            for part in Deleted<NotePart>.query(in: context).resolve() { try part.restore(in: &context) }
        }
        #expect(Note.query("n", in: reopened.context).with(\.$parts).resolve()?.parts?.map(\.id) == ["p"])
        reopened.close()
    }
}

/// #27: restoring is saving the archived entity back. Links of an entity to itself and
/// one-way links to ids without a row are valid when saved, so they come back.
@Suite struct RestoreLinksTests {
    /// An item linked to itself through every relation shape, and one-way to ids with no row.
    static func selfLinkedItem() -> Item {
        Item(id: "i", parent: .id("i"), friends: .ids(["i"]), refs: .ids(["i", "ghost"]), ref: .id("i"), owner: .id("nobody"))
    }

    /// Every link of a stored item, as the ids it holds (stored or not): what an archive keeps.
    static func links(_ id: String, _ context: Context) -> String? {
        Item(id: id, owner: .none).asDeleted(in: context).map { archived in
            let item = archived.entity
            return [item.$parent.id ?? "-", "\(item.$children.ids ?? [])", "\(item.$friends.ids ?? [])",
                    "\(item.$refs.ids ?? [])", item.$ref.id ?? "-", item.$owner.id ?? "-"].joined(separator: " ")
        }
    }

    @Test func selfLinksAndIdOnlyLinksComeBack() throws {
        var context = Context()
        try Self.selfLinkedItem().save(to: &context)
        let saved = Self.links("i", context)
        #expect(saved == #"i ["i"] ["i"] ["i", "ghost"] i nobody"#)
        try #require(Item(id: "i", owner: .none).asDeleted(in: context)).save(to: &context)
        #expect(context.find(Item.self, id: "i") == nil)
        // The archive holds every id the item linked to, stored or not.
        let archived = try #require(context.find(Deleted<Item>.self, id: "i"))
        #expect(archived.entity.$refs.ids == ["i", "ghost"] && archived.entity.$owner.id == "nobody")
        // The required one-way owner has no row: the restore still succeeds, as the save did.
        try archived.restore(in: &context)
        #expect(Self.links("i", context) == saved)
        #expect(Item.query("i", in: context).with(.ids).resolve().map { [$0.$parent.id, $0.$ref.id] } == ["i", "i"])
        #expect(context.find(Deleted<Item>.self, id: "i") == nil)
    }

    @Test func mutualLinksToEntitiesDeletedSinceStayDropped() throws {
        var context = Context()
        try Item(id: "p", owner: .id("o")).save(to: &context)
        try Item(id: "i", parent: .id("p"), friends: .ids(["p", "i"]), refs: .ids(["p"]), owner: .id("o")).save(to: &context)
        try #require(Item(id: "i", owner: .none).asDeleted(in: context)).save(to: &context)
        try Item(id: "p", owner: .none).delete(from: &context)
        try #require(context.find(Deleted<Item>.self, id: "i")).restore(in: &context)
        // Mutual links to the deleted "p" are dropped (a new "p" must not inherit them); the
        // one-way ref to it and the link to itself stay.
        #expect(Self.links("i", context) == #"- [] ["i"] ["p"] - o"#)
        try Item(id: "p", owner: .id("o")).save(to: &context)
        #expect(Self.links("p", context) == #"- [] [] [] - o"#)
    }

    @Test func aStoreRestoresTheSameLinks() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("restore-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        var store = try Store(.file(url), schema: GeneratedCodeTestsSchema.self)
        try store.write { context in try Self.selfLinkedItem().save(to: &context) }
        let saved = Self.links("i", store.context)
        try store.write { context in try #require(Item(id: "i", owner: .none).asDeleted(in: context)).save(to: &context) }
        store.close()
        store = try Store(.file(url), schema: GeneratedCodeTestsSchema.self)
        #expect(store.context.find(Deleted<Item>.self, id: "i")?.entity.$refs.ids == ["i", "ghost"])
        try store.write { context in try #require(context.find(Deleted<Item>.self, id: "i")).restore(in: &context) }
        #expect(Self.links("i", store.context) == saved)
        store.close()
        store = try Store(.file(url), schema: GeneratedCodeTestsSchema.self)
        #expect(Self.links("i", store.context) == saved)
        store.close()
    }
}
