import ChatModels
import Foundation
import SchemaRuntime
import Testing

/// README "How to Delete Entities", "Relationship DeleteRule" and "Removing Relations".
@Suite struct DeletingTests {
    @Test func deletingNullifiesInverseLinks() throws {
        var context = Context()
        try Fixtures.readmeChat.save(to: &context)
        try User(id: "2", name: "Alice").delete(from: &context)
        #expect(context.find(User.self, id: "2") == nil)
        #expect(Chat.query("1", in: context).id(\.$users).resolve()?.$users.ids == ["1"])
        // A one-way link to the deleted user no longer resolves.
        #expect(Message.query("2", in: context).with(\.$author).resolve()?.author == nil)
    }

    @Test func cascadeDeletesMessagesAndTheirAttachments() throws {
        var context = Context()
        var chat = Fixtures.readmeChat
        chat.$messages = .relation([Message(id: "1", text: "a", attachment: .relation(Attachment(id: "x"))).withAuthor()])
        try chat.save(to: &context)
        try chat.delete(from: &context)
        #expect(context.count(of: Chat.self) == 0)
        #expect(context.count(of: Message.self) == 0)
        #expect(context.count(of: Attachment.self) == 0)
        #expect(context.count(of: User.self) == 2) // users are nullified, not cascaded
        #expect(User.query("1", in: context).id(\.$chats).id(\.$adminOf).resolve().map { ($0.$chats.ids, $0.$adminOf.ids) }! == ([], []))
    }

    @Test func deletingSomethingNotStoredDoesNothing() throws {
        var context = Context()
        try Fixtures.readmeChat.save(to: &context)
        let before = try Snapshot(context)
        try Chat(id: "nope").delete(from: &context)
        #expect(try Snapshot(context) == before)
    }

    @Test func detachKeepsBothEntities() throws {
        var context = Context()
        try Fixtures.readmeChat.save(to: &context)
        let bob = try #require(context.find(User.self, id: "1"))
        try bob.detach(\.$chats, inverse: \.$users, in: &context)
        #expect(User.query("1", in: context).id(\.$chats).resolve()?.$chats.ids == [])
        #expect(Chat.query("1", in: context).id(\.$users).resolve()?.$users.ids == ["2"])
        #expect(context.count(of: Chat.self) == 1)
    }

    @Test func deleteRelatedRemovesLinkedEntities() throws {
        var context = Context()
        try Message(id: "m", text: "x", attachment: .relation(Attachment(id: "a"))).withRequiredLinks().save(to: &context)
        let message = try #require(context.find(Message.self, id: "m"))
        try message.delete(\.$attachment, inverse: \.$message, from: &context)
        #expect(context.find(Attachment.self, id: "a") == nil)
        #expect(context.find(Message.self, id: "m") != nil)
    }
}

/// `Deleted<Entity>`: soft delete and restore, as in SwiftletModel, with links kept.
@Suite struct SoftDeleteTests {
    @Test func archiveListAndRestoreWithLinks() throws {
        var context = Context()
        try Fixtures.readmeChat.save(to: &context)
        let message = try #require(context.find(Message.self, id: "1"))
        let archived = try #require(message.asDeleted(in: context))
        try archived.save(to: &context)

        #expect(context.find(Message.self, id: "1") == nil)
        #expect(Chat.query("1", in: context).id(\.$messages).resolve()?.$messages.ids == ["2"])
        #expect(Deleted<Message>.query(in: context).resolve().map(\.id) == ["1"])
        #expect(Deleted<Message>.query("1", in: context).resolve()?.entity.text == "Any thoughts on SwiftletModel?")

        let restored = try #require(Deleted<Message>.query("1", in: context).resolve())
        try restored.restore(in: &context)
        #expect(context.count(of: Deleted<Message>.self) == 0)
        let back = try #require(Message.query("1", in: context).with(\.$author).id(\.$chat).resolve())
        #expect(back.author?.name == "Bob" && back.$chat.id == "1")
        #expect(Set(Chat.query("1", in: context).id(\.$messages).resolve()?.$messages.ids ?? []) == ["1", "2"])
    }

    @Test func archivesEncode() throws {
        var context = Context()
        try Message(id: "m", text: "hello", author: .relation(User(id: "u", name: "U"))).withRequiredLinks().save(to: &context)
        let archived = try #require(context.find(Message.self, id: "m")?.asDeleted(in: context))
        let decoded = try JSONDecoder().decode(Deleted<Message>.self, from: JSONEncoder().encode(archived))
        #expect(decoded.entity == archived.entity && decoded.entity.$author.id == "u")
    }
}
