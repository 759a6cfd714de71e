import ChatModels
import Foundation
import SchemaRuntime
import Testing

/// #30: `entityEncodingStyle = .swiftletModel` writes SwiftletModel's JSON byte for byte. The
/// expected texts follow its rules: synthesized `Codable` leaves nil fields out; relations
/// are always written (`null` when not loaded); its keyed containers say `object`/`objects`,
/// a null link is `{"id": null}` and explicit slices are `slice_ids`/`slice`.
@Suite struct SwiftletModelJSONTests {
    static let viewer = #"{"adminOf":null,"age":0,"chats":null,"id":"v","name":"V","status":"active"}"#
    static let chat = #"{"admins":null,"id":"c","messages":null,"users":null}"#

    static func encode(_ message: Message, _ strategy: RelationEncodingStrategy, style: EntityEncodingStyle = .swiftletModel) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.relationEncodingStrategy = strategy
        encoder.entityEncodingStyle = style
        return String(decoding: try encoder.encode(message), as: UTF8.self)
    }

    static let message = Message(id: "1", text: "hi", timestamp: 5, tags: ["a"], author: .id("u"), chat: .relation(Chat(id: "c")),
                                 attachment: .null, replies: .ids(["2"]), viewedBy: .fragment([User(id: "v", name: "V")]))
    static let slices = Message(id: "1", text: "hi", author: .id("u"), chat: .id("c"),
                                replies: .appending(ids: ["2"]), viewedBy: .appending(fragment: [User(id: "v", name: "V")]))

    @Test func plainLeavesNilFieldsOutAndWritesUnloadedRelationsAsNull() throws {
        let expected = #"{"attachment":null,"author":{"id":"u"},"chat":\#(Self.chat),"id":"1","replies":[{"id":"2"}],"#
            + #""replyTo":null,"tags":["a"],"text":"hi","timestamp":5,"viewedBy":[\#(Self.viewer)]}"#
        #expect(try Self.encode(Self.message, .plain) == expected)
    }

    @Test func keyedContainersSayObjectAndObjectsAndNullIsANullID() throws {
        let expected = #"{"attachment":{"id":null},"author":{"id":"u"},"chat":{"object":\#(Self.chat)},"id":"1","#
            + #""replies":{"ids":["2"]},"replyTo":null,"tags":["a"],"text":"hi","timestamp":5,"viewedBy":{"objects":[\#(Self.viewer)]}}"#
        #expect(try Self.encode(Self.message, .keyedContainer) == expected)
        #expect(try Self.encode(Self.message, .explicitKeyedContainer) == expected)
    }

    @Test func explicitSlicesAreSliceIDsAndSlice() throws {
        let expected = #"{"attachment":null,"author":{"id":"u"},"chat":{"id":"c"},"id":"1","replies":{"slice_ids":["2"]},"#
            + #""replyTo":null,"tags":[],"text":"hi","timestamp":0,"viewedBy":{"slice":[\#(Self.viewer)]}}"#
        #expect(try Self.encode(Self.slices, .explicitKeyedContainer) == expected)
        // Keyed containers have no slices in SwiftletModel: a slice is written as a list.
        #expect(try Self.encode(Self.slices, .keyedContainer).contains(#""replies":{"ids":["2"]}"#))
    }

    @Test func aSetFieldIsWrittenAndNilOnesOnlyInSchemaGensStyle() throws {
        var message = Self.slices
        message.editedAt = Date(timeIntervalSinceReferenceDate: 7)
        #expect(try Self.encode(message, .plain).contains(#""editedAt":7"#))
        #expect(try Self.encode(Self.slices, .plain, style: .schemaGen).contains(#""editedAt":null"#))
        #expect(try !Self.encode(Self.slices, .plain).contains("editedAt"))
    }

    /// What SwiftletModel writes reads back: every link state its JSON can say.
    @Test(arguments: [RelationEncodingStrategy.plain, .keyedContainer, .explicitKeyedContainer])
    func swiftletModelJSONDecodesToTheSameLinks(strategy: RelationEncodingStrategy) throws {
        for sample in [Self.message, Self.slices] {
            let json = try Self.encode(sample, strategy)
            let decoded = try JSONDecoder().decode(Message.self, from: Data(json.utf8))
            #expect(decoded.text == sample.text && decoded.editedAt == nil && decoded.tags == sample.tags)
            #expect(decoded.$author.id == sample.$author.id && decoded.$chat.id == sample.$chat.id)
            #expect(decoded.$replies.ids == sample.$replies.ids)
            #expect(decoded.$viewedBy.ids == sample.$viewedBy.ids)
            // Plain JSON cannot tell null from not loaded; keyed JSON can.
            #expect(decoded.$attachment.isNull == (sample.$attachment.isNull && strategy != .plain))
            // Only explicit containers say "slice".
            let appends = strategy == .explicitKeyedContainer && sample.$replies.isAppending
            #expect(decoded.$replies.isAppending == appends && decoded.$viewedBy.isAppending == appends)
        }
    }

    /// SwiftletModel's earlier versions called slices chunks.
    @Test func chunksDecodeAsSlices() throws {
        let json = #"{"id":"1","text":"hi","author":{"id":"u"},"chat":{"id":"c"},"replies":{"chunk_ids":["2"]},"viewedBy":{"chunk":[\#(Self.viewer)]}}"#
        let decoded = try JSONDecoder().decode(Message.self, from: Data(json.utf8))
        #expect(decoded.$replies.isAppending && decoded.$replies.ids == ["2"])
        #expect(decoded.$viewedBy.isAppending && decoded.$viewedBy.ids == ["v"])
    }
}
