import ChatModels
import Foundation
import SchemaRuntime
import Testing

/// README "Codable Conformance": relation encoding strategies and round trips.
@Suite struct CodableTests {
    private func graph() throws -> (Context, User) {
        var context = Context()
        try Fixtures.readmeChat.save(to: &context)
        try Fixtures.readmeReply.save(to: &context)
        let user = try #require(User.query("1", in: context)
            .with(\.$chats) { $0.with(\.$messages) { $0.with(\.$replies) { $0.with(\.$author).id(\.$replyTo) }.id(\.$author).id(\.$chat) }.with(\.$users).id(\.$admins) }
            .resolve())
        return (context, user)
    }

    @Test func plainEncodingMatchesTheReadmeShape() throws {
        let (_, user) = try graph()
        let encoder = JSONEncoder.prettyPrinting
        encoder.relationEncodingStrategy = .plain
        let json = try #require(user.prettyDescription(with: encoder))
        #expect(json.contains("\"admins\" : [\n        {\n          \"id\" : \"1\"\n        }\n      ]"))
        #expect(json.contains("\"adminOf\" : null"))
        #expect(json.contains("\"replyTo\" : {\n                \"id\" : \"1\""))
    }

    /// #30: SwiftletModel's pretty printing leaves slashes as they are.
    @Test func prettyPrintingLeavesSlashesUnescaped() throws {
        let attachment = Attachment(id: "a/1", url: URL(string: "https://example.com/a/b.png"))
        let json = try #require(attachment.prettyDescription())
        #expect(json.contains(#""url" : "https://example.com/a/b.png""#) && json.contains(#""id" : "a/1""#), "\(json)")
        #expect(!json.contains("\\/"))
    }

    @Test(arguments: [RelationEncodingStrategy.plain, .keyedContainer, .explicitKeyedContainer])
    func decodedGraphSavesBackToAnIdenticalContext(strategy: RelationEncodingStrategy) throws {
        let (context, _) = try graph()
        let all = Chat.queryAll(with: .entities, .entities, .entities, in: context).resolve()
        let encoder = JSONEncoder()
        encoder.relationEncodingStrategy = strategy
        let decoded = try JSONDecoder().decode([Chat].self, from: encoder.encode(all))
        var rebuilt = Context()
        try decoded.save(to: &rebuilt)
        #expect(try Snapshot(rebuilt) == Snapshot(context))
    }

    @Test func explicitStrategyRoundTripsEveryRelationState() throws {
        let encoder = JSONEncoder()
        encoder.relationEncodingStrategy = .explicitKeyedContainer
        let samples: [Message] = [
            Message(id: "1", text: "a", attachment: .null, replies: .appending(ids: ["2"])),
            Message(id: "2", text: "b", author: .fragment(User(id: "u", name: "U")), viewedBy: .appending(fragment: [User(id: "v", name: "V")])),
            Message(id: "3", text: "c", chat: .id("c"), replies: .fragment([Message(id: "4", text: "d")])),
        ]
        let decoded = try JSONDecoder().decode([Message].self, from: encoder.encode(samples))
        #expect(decoded == samples)
    }

    @Test func plainCannotTellNullFromNoneAndReadsItAsNone() throws {
        let encoder = JSONEncoder()
        encoder.relationEncodingStrategy = .plain
        let message = Message(id: "1", text: "a", attachment: .null)
        let decoded = try JSONDecoder().decode(Message.self, from: encoder.encode(message))
        #expect(decoded.$attachment.isNone)
    }

    @Test func missingFieldsWithDefaultsDecode() throws {
        let json = #"{"id": "1", "name": "Bob"}"#
        let user = try JSONDecoder().decode(User.self, from: Data(json.utf8))
        #expect(user.age == 0 && user.status == .active && user.$chats.isNone)
    }

    /// The encoded form is part of the contract: every field, nil as an explicit `null`, then
    /// every relation as the strategy says, each under its schema name.
    @Test func encodingWritesEveryFieldAndRelationUnderItsName() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let message = Message(id: "1", text: "hi", timestamp: 5, tags: ["a"], author: .id("u"), chat: .relation(Chat(id: "c")),
                              attachment: .null, replies: .ids(["2"]), viewedBy: .fragment([User(id: "v", name: "V")]))
        let json = String(decoding: try encoder.encode(message), as: UTF8.self)
        let expected = #"{"attachment":null,"author":{"id":"u"},"chat":{"admins":null,"id":"c","messages":null,"title":null,"users":null},"#
            + #""editedAt":null,"id":"1","replies":[{"id":"2"}],"replyTo":null,"tags":["a"],"text":"hi","timestamp":5,"#
            + #""viewedBy":[{"adminOf":null,"age":0,"avatar":null,"chats":null,"email":null,"id":"v","isCurrent":null,"name":"V","#
            + #""profile":null,"status":"active","username":null}]}"#
        #expect(json == expected)
    }
}
