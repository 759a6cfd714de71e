import ChatModels
import DeterministicRandom
import Foundation
import SchemaRuntime
import Testing

/// A whole context as one JSON document and back: the same graph (Snapshot), the same links
/// including those to ids not stored (a deleted author), and the same archives.
@Suite struct ContextDocumentTests {
    /// Each entity of a document, by type and id: what two documents must agree on.
    struct Contents: Equatable {
        var users: [String: User] = [:], chats: [String: Chat] = [:], messages: [String: Message] = [:]
        var attachments: [String: ChatModels.Attachment] = [:], deletedMessages: [String: Deleted<Message>] = [:]

        init(_ data: Data) throws {
            struct Raw: Decodable {
                var User: [ChatModels.User]?, Chat: [ChatModels.Chat]?, Message: [ChatModels.Message]?, Attachment: [ChatModels.Attachment]?
                var deleted: [Deleted<ChatModels.Message>]?
                enum CodingKeys: String, CodingKey { case User, Chat, Message, Attachment, deleted = "Deleted<Message>" }
            }
            let raw = try JSONDecoder().decode(Raw.self, from: data)
            users = Dictionary(uniqueKeysWithValues: (raw.User ?? []).map { ($0.id, $0) })
            chats = Dictionary(uniqueKeysWithValues: (raw.Chat ?? []).map { ($0.id, $0) })
            messages = Dictionary(uniqueKeysWithValues: (raw.Message ?? []).map { ($0.id, $0) })
            attachments = Dictionary(uniqueKeysWithValues: (raw.Attachment ?? []).map { ($0.id, $0) })
            deletedMessages = Dictionary(uniqueKeysWithValues: (raw.deleted ?? []).map { ($0.id, $0) })
        }
    }

    @Test(arguments: 0..<5)
    func aContextRoundTripsThroughOneDocument(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var context = Context()
        for index in 0..<8 { try User(id: "u\(index)", name: "n\(index)", age: index).save(to: &context) }
        for index in 0..<4 {
            try Chat(id: "c\(index)", title: "t", users: .ids((0..<3).map { _ in "u\(Int.random(in: 0..<8, using: &random))" })).save(to: &context)
        }
        for index in 0..<30 {
            try Message(id: "m\(index)", text: "t\(index)", timestamp: index, author: .id("u\(Int.random(in: 0..<8, using: &random))"),
                        chat: .id("c\(Int.random(in: 0..<4, using: &random))"),
                        attachment: index % 7 == 0 ? .relation(ChatModels.Attachment(id: "a\(index)")) : .none,
                        replyTo: index > 0 && index % 3 == 0 ? .id("m\(index - 1)") : .none).save(to: &context)
        }
        // A deleted author leaves its id in the messages' one-way required relation.
        try User.delete(id: try #require(Message.query("m0", in: context).id(\.$author).resolve()?.$author.id), from: &context)
        // Archives.
        for id in ["m4", "m9"] { try context.find(Message.self, id: id)!.asDeleted(in: context)!.save(to: &context) }

        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = try encoder.encode(ContextDocument<ChatModelsSchema>(context))
        let decoded = try JSONDecoder().decode(ContextDocument<ChatModelsSchema>.self, from: data).context
        #expect(try Snapshot(decoded) == Snapshot(context))
        let again = try encoder.encode(ContextDocument<ChatModelsSchema>(decoded))
        #expect(try Contents(again) == Contents(data))
        #expect(Deleted<Message>.query(in: decoded).resolve().map(\.id).sorted() == ["m4", "m9"])
        #expect(try Contents(data).messages.values.contains { message in context.find(User.self, id: message.$author.id ?? "") == nil },
                "the document keeps a link to the deleted author")
    }

    @Test func aDocumentMergesIntoAnotherContextAsEntitiesOrFragments() throws {
        var source = Context()
        try User(id: "u", name: "New name").save(to: &source)
        try Chat(id: "c", users: .ids(["u"])).save(to: &source)
        let document = ContextDocument<ChatModelsSchema>(source)
        var target = Context()
        try User(id: "u", name: "Old", email: "kept@example.com").save(to: &target)
        try User(id: "other", name: "Other").save(to: &target)

        var asFragments = target
        try document.save(to: &asFragments, asFragments: true)
        #expect(asFragments.find(User.self, id: "u")?.name == "New name")
        #expect(asFragments.find(User.self, id: "u")?.email == "kept@example.com", "a fragment keeps what it leaves out")
        #expect(asFragments.find(User.self, id: "other") != nil)
        #expect(Chat.query("c", in: asFragments).with(\.$users).resolve()?.users?.map(\.id) == ["u"])

        var asEntities = target
        try document.save(to: &asEntities)
        #expect(asEntities.find(User.self, id: "u")?.email == nil, "an entity replaces the stored one")
    }
}
