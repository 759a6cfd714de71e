import ChatModels
import SchemaRuntime
import Testing

/// README "How to Save Entities" and "Establishing Relations", on types generated from Schemas/Chat.
@Suite struct SavingTests {
    @Test func savingAChatNormalizesEmbeddedEntitiesAndLinksBothSides() throws {
        var context = Context()
        try Fixtures.readmeChat.save(to: &context)

        #expect(context.count(of: Chat.self) == 1)
        #expect(context.count(of: User.self) == 2)
        #expect(context.count(of: Message.self) == 2)
        // Querying from the other end works: links are bidirectional.
        let bob = User.query("1", in: context).with(\.$chats).id(\.$adminOf).resolve()
        #expect(bob?.chats?.map(\.id) == ["1"])
        #expect(bob?.$adminOf.ids == ["1"])
        let message = Message.query("2", in: context).id(\.$chat).resolve()
        #expect(message?.$chat.id == "1")
    }

    @Test func storedEntitiesCarryNoRelationPayload() throws {
        var context = Context()
        try Fixtures.readmeChat.save(to: &context)
        let chat = try #require(context.find(Chat.self, id: "1"))
        #expect(chat.$users.isNone && chat.$messages.isNone && chat.$admins.isNone)
    }

    @Test func duplicatesCollapseByID() throws {
        var context = Context()
        let chat = Chat(id: "c", users: .relation([User(id: "1", name: "Bob"), User(id: "1", name: "Bobby")]))
        try chat.save(to: &context)
        #expect(context.count(of: User.self) == 1)
        #expect(context.find(User.self, id: "1")?.name == "Bobby")
        #expect(Chat.query("c", in: context).id(\.$users).resolve()?.$users.ids == ["1"])
    }

    @Test func relationByIDLinksEntitiesSavedLater() throws {
        var context = Context()
        var message = Message(id: "m", text: "Howdy!").withRequiredLinks()
        message.$author = .id("u")
        try message.save(to: &context)
        #expect(Message.query("m", in: context).with(\.$author).resolve()?.author == nil)
        try User(id: "u", name: "Una").save(to: &context)
        #expect(Message.query("m", in: context).with(\.$author).resolve()?.author?.name == "Una")
    }

    @Test func noneKeepsAndNullRemovesAToOneLink() throws {
        var context = Context()
        try Message(id: "m", text: "x", attachment: .relation(Attachment(id: "a"))).withRequiredLinks().save(to: &context)
        try Message(id: "m", text: "edited", attachment: .none).save(to: &context)
        #expect(Message.query("m", in: context).id(\.$attachment).resolve()?.$attachment.id == "a")

        try Message(id: "m", text: "edited", attachment: .null).save(to: &context)
        #expect(Message.query("m", in: context).id(\.$attachment).resolve()?.$attachment.id == nil)
        // The inverse is cleared too, and the attachment itself is kept.
        #expect(Attachment.query("a", in: context).id(\.$message).resolve()?.$message.id == nil)
        #expect(context.find(Attachment.self, id: "a") != nil)
    }

    @Test func movingAToOneTargetClearsTheOldOwner() throws {
        var context = Context()
        try Attachment(id: "a").save(to: &context)
        try Message(id: "m1", text: "1", attachment: .id("a")).withRequiredLinks().save(to: &context)
        try Message(id: "m2", text: "2", attachment: .id("a")).withRequiredLinks().save(to: &context)
        #expect(Message.query("m1", in: context).id(\.$attachment).resolve()?.$attachment.id == nil)
        #expect(Message.query("m2", in: context).id(\.$attachment).resolve()?.$attachment.id == "a")
        #expect(Attachment.query("a", in: context).id(\.$message).resolve()?.$message.id == "m2")
    }

    @Test func movingAMessageToAnotherChatUpdatesBothChats() throws {
        var context = Context()
        try Chat(id: "a", messages: .relation([Message(id: "m", text: "x").withAuthor()])).save(to: &context)
        try Message(id: "m", text: "x", chat: .relation(Chat(id: "b"))).save(to: &context)
        #expect(Chat.query("a", in: context).id(\.$messages).resolve()?.$messages.ids == [])
        #expect(Chat.query("b", in: context).id(\.$messages).resolve()?.$messages.ids == ["m"])
    }

    @Test func toManyReplaceUnlinksRemovedTargetsOnTheOtherSide() throws {
        var context = Context()
        try ["1", "2", "3"].map { User(id: $0, name: $0) }.save(to: &context)
        try Chat(id: "c", users: .ids(["1", "2"])).save(to: &context)
        try Chat(id: "c", users: .ids(["2", "3"])).save(to: &context)
        #expect(Chat.query("c", in: context).id(\.$users).resolve()?.$users.ids == ["2", "3"])
        #expect(User.query("1", in: context).id(\.$chats).resolve()?.$chats.ids == [])
        #expect(User.query("3", in: context).id(\.$chats).resolve()?.$chats.ids == ["c"])
    }

    @Test func appendingAddsToStoredLinksWithoutDuplicates() throws {
        var context = Context()
        try Chat(id: "c", messages: .relation([Message(id: "1", text: "a").withAuthor()])).save(to: &context)
        try Chat(id: "c", messages: .appending(relation: [Message(id: "2", text: "b").withAuthor(), Message(id: "1", text: "a").withAuthor()])).save(to: &context)
        try Message(id: "3", text: "c").withRequiredLinks().save(to: &context)
        try Chat(id: "c", messages: .appending(ids: ["3"])).save(to: &context)
        #expect(Chat.query("c", in: context).id(\.$messages).resolve()?.$messages.ids == ["1", "2", "3"])
    }

    @Test func linksToEntitiesNotStoredAreNotResolvedEvenAsIDs() throws {
        var context = Context()
        try Chat(id: "c", users: .ids(["ghost"])).save(to: &context)
        #expect(Chat.query("c", in: context).id(\.$users).resolve()?.$users.ids == [])
        try User(id: "ghost", name: "Now stored").save(to: &context)
        #expect(Chat.query("c", in: context).id(\.$users).resolve()?.$users.ids == ["ghost"])
    }

    @Test func selfRelationRepliesAreSymmetric() throws {
        var context = Context()
        try Message(id: "q", text: "question", replies: .relation([Message(id: "a", text: "answer").withRequiredLinks()])).withRequiredLinks().save(to: &context)
        #expect(Message.query("a", in: context).id(\.$replyTo).resolve()?.$replyTo.id == "q")
    }
}
