import SchemaEvolution
import Testing

/// Which link tables a shape gets, and their names.
@Suite struct TableLayoutTests {
    @Test func linkStoragePerPairing() {
        let shape = SchemaShape(entities: [
            EntityShape("Chat", fields: [FieldShape("id", "String", column: .text)], relations: [
                RelationShape("messages", to: "Message", toMany: true, inverse: "chat"),
                RelationShape("users", to: "User", toMany: true, inverse: "chats"),
                RelationShape("pinned", to: "Message"),
            ]),
            EntityShape("Message", fields: [FieldShape("id", "String", column: .text)], relations: [
                RelationShape("chat", to: "Chat", inverse: "messages"),
                RelationShape("draft", to: "Draft", inverse: "message"),
            ]),
            EntityShape("User", fields: [FieldShape("id", "String", column: .text)], relations: [
                RelationShape("chats", to: "Chat", toMany: true, inverse: "users"),
            ]),
            EntityShape("Draft", fields: [FieldShape("id", "String", column: .text)], relations: [
                RelationShape("message", to: "Message", inverse: "draft"),
            ]),
            EntityShape("draft", fields: [FieldShape("id", "String", column: .text)]),
        ])
        let layout = TableLayout(shape)
        typealias Path = TableLayout.RelationPath
        #expect(layout.relations[Path("Chat", "messages")] == .stored(table: "Chat.messages", derivedInverse: Path("Message", "chat")))
        #expect(layout.relations[Path("Message", "chat")] == .derived(from: Path("Chat", "messages")))
        #expect(layout.relations[Path("Chat", "users")] == .stored(table: "Chat.users", derivedInverse: nil))
        #expect(layout.relations[Path("User", "chats")] == .stored(table: "User.chats", derivedInverse: nil))
        #expect(layout.relations[Path("Chat", "pinned")] == .stored(table: "Chat.pinned", derivedInverse: nil))
        // One-to-one: the side whose (entity, relation) sorts first keeps the links.
        #expect(layout.relations[Path("Draft", "message")] == .stored(table: "Draft.message", derivedInverse: Path("Message", "draft")))
        #expect(layout.relations[Path("Message", "draft")] == .derived(from: Path("Draft", "message")))
        // SQL names ignore case: the second `draft` table gets a suffix.
        #expect(layout.entityTables["Draft"] == "Draft")
        #expect(layout.entityTables["draft"] == "draft:2")
    }
}
