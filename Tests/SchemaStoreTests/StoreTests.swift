import ChatModels
import CatalogModels
import Foundation
import SchemaRuntime
@testable import SchemaStore
import Testing

/// A store keeps the graph across close and reopen, commits atomically, and reads snapshots.
@Suite struct StoreTests {
    static func seed(_ context: inout Context) throws {
        try User(id: "u1", name: "Ada", username: "ada", email: "ada@example.com", age: 36, status: .away,
                 avatar: Avatar(small: URL(string: "https://example.com/a.png")), profile: Profile(bio: "Engineer")).save(to: &context)
        try User(id: "u2", name: "Bob", username: "bob").save(to: &context)
        try Chat(id: "c1", title: "Lunch", users: .ids(["u1", "u2"]), admins: .ids(["u2"])).save(to: &context)
        try Message(id: "m1", text: "hello there", timestamp: 10, editedAt: Date(timeIntervalSinceReferenceDate: 12.5), tags: ["a", "b"],
                    author: .id("u1"), chat: .id("c1"),
                    attachment: .relation(Attachment(id: "a1", kind: .video, url: URL(string: "file:///x.mov")))).save(to: &context)
        try Message(id: "m2", text: "hello again", timestamp: 20, author: .id("u2"), chat: .id("c1"), replyTo: .id("m1"),
                    viewedBy: .ids(["u1", "u2"])).save(to: &context)
    }

    @Test func aWrittenGraphIsThereAfterReopening() throws {
        let folder = try TemporaryFolder()
        let store = try Store(.file(folder.file()), schema: ChatModelsSchema.self)
        try store.write { try Self.seed(&$0) }
        let written = try StoreSnapshot(store.context)
        store.close()
        let reopened = try Store(.file(folder.file()), schema: ChatModelsSchema.self)
        #expect(try StoreSnapshot(reopened.context) == written)
        #expect(Message.query("m2", in: reopened.context).with(\.$replyTo).resolve()?.replyTo?.id == "m1")
        #expect(Chat.query("c1", in: reopened.context).with(\.$messages).resolve()?.messages?.map(\.id) == ["m1", "m2"])
    }

    @Test func aThrowingWriteChangesNeitherTheFileNorTheGraph() throws {
        struct Cancelled: Error {}
        let folder = try TemporaryFolder()
        let store = try Store(.file(folder.file()), schema: ChatModelsSchema.self)
        try store.write { try Self.seed(&$0) }
        let before = try StoreSnapshot(store.context)
        #expect(throws: Cancelled.self) {
            try store.write { context in
                try Message(id: "m1", text: "changed", author: .id("u1"), chat: .id("c1")).delete(from: &context)
                try User(id: "u3", name: "Cy").save(to: &context)
                throw Cancelled()
            }
        }
        #expect(try StoreSnapshot(store.context) == before)
        // A commit that fails (an entity outside the store's schema) changes nothing either.
        #expect(throws: StoreError.unknownEntity(name: "Category")) {
            try store.write { context in
                try User(id: "u4", name: "Dee").save(to: &context)
                try CatalogModels.Category(id: 1, name: "Pens").save(to: &context)
            }
        }
        #expect(try StoreSnapshot(store.context) == before)
        store.close()
        #expect(try StoreSnapshot(Store(.file(folder.file()), schema: ChatModelsSchema.self).context) == before)
    }

    @Test func readersKeepTheirSnapshot() throws {
        let store = try Store(.sqliteMemory, schema: ChatModelsSchema.self)
        try store.write { try Self.seed(&$0) }
        let reader = store.context
        let before = try StoreSnapshot(reader)
        try store.write { context in
            try Chat(id: "c1").delete(from: &context)
            try User(id: "u9", name: "Zed").save(to: &context)
        }
        #expect(try StoreSnapshot(reader) == before)
        #expect(store.context.count(of: Message.self) == 0)
        #expect(reader.count(of: Message.self) == 2)
    }

    @Test func aWriteThatChangesNothingCommitsNothing() throws {
        let store = try Store(.sqliteMemory, schema: ChatModelsSchema.self)
        let result = try store.write { context in context.count(of: User.self) }
        #expect(result == 0)
    }

    @Test(arguments: [Store.Location.memory, .sqliteMemory])
    func inMemoryStoresWorkLikeFileStores(location: Store.Location) throws {
        let store = try Store(location, schema: ChatModelsSchema.self)
        try store.write { try Self.seed(&$0) }
        var reference = Context()
        try Self.seed(&reference)
        #expect(try StoreSnapshot(store.context, saveTimes: false) == StoreSnapshot(reference, saveTimes: false))
        #expect(throws: StoreError.unknownEntity(name: "Category")) {
            try store.write { try CatalogModels.Category(id: 1, name: "Pens").save(to: &$0) }
        }
    }

    @Test func asyncWritesFromManyTasksAreSerializedAndKept() async throws {
        let folder = try TemporaryFolder()
        let store = try Store(.file(folder.file()), schema: ChatModelsSchema.self)
        try await store.write { context in
            try User(id: "u1", name: "Ada").save(to: &context)
            try Chat(id: "c1").save(to: &context)
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask {
                    try await store.write { context in
                        try Message(id: "m\(index)", text: "n\(index)", timestamp: index, author: .id("u1"), chat: .id("c1")).save(to: &context)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(store.context.count(of: Message.self) == 40)
        let expected = try StoreSnapshot(store.context)
        store.close()
        let reopened = try Store(.file(folder.file()), schema: ChatModelsSchema.self)
        #expect(try StoreSnapshot(reopened.context) == expected)
        #expect(Chat.query("c1", in: reopened.context).with(\.$messages).resolve()?.messages?.count == 40)
    }

    @Test func aWriteInsideAWriteThrowsInsteadOfWaitingForItself() throws {
        let store = try Store(.sqliteMemory, schema: ChatModelsSchema.self)
        #expect(throws: StoreError.nestedWrite) {
            try store.write { context in
                try User(id: "u1", name: "Ada").save(to: &context)
                try store.write { try User(id: "u2", name: "Bob").save(to: &$0) }
            }
        }
        #expect(store.context.count(of: User.self) == 0)
        try store.write { try User(id: "u3", name: "Cy").save(to: &$0) }
        #expect(store.context.count(of: User.self) == 1)
    }

    @Test func writesAfterCloseThrow() throws {
        let store = try Store(.sqliteMemory, schema: ChatModelsSchema.self)
        store.close()
        #expect(throws: StoreError.closed) { try store.write { try User(id: "u1", name: "Ada").save(to: &$0) } }
    }

    @Test func anEditedLinkOrderIsThereAfterReopening() throws {
        let folder = try TemporaryFolder()
        let store = try Store(.file(folder.file()), schema: ChatModelsSchema.self)
        try store.write { context in
            try Self.seed(&context)
            for index in 3...6 { try Message(id: "m\(index)", text: "t", author: .id("u1"), chat: .id("c1")).save(to: &context) }
        }
        let chat = Chat(id: "c1")
        // Each a separate commit: a reorder that keeps the same links must still be written.
        try store.write { try chat.move(\.$messages, from: 0, to: 5, in: &$0) }
        try store.write { try chat.reorder(\.$users, as: ["u2", "u1"], in: &$0) }
        try store.write { try chat.insert(["u1"], at: 1, into: \.$admins, in: &$0) }
        try store.write { try chat.move(\.$messages, fromOffsets: [3, 4], toOffset: 0, in: &$0) }
        let expected = Chat.query("c1", in: store.context).with(\.$messages).with(\.$users).with(\.$admins).resolve()
        #expect(expected?.messages?.map(\.id) == ["m5", "m6", "m2", "m3", "m4", "m1"])
        store.close()
        let reopened = try Store(.file(folder.file()), schema: ChatModelsSchema.self)
        let chatAfter = Chat.query("c1", in: reopened.context).with(\.$messages).with(\.$users).with(\.$admins).resolve()
        #expect(chatAfter?.messages?.map(\.id) == expected?.messages?.map(\.id))
        #expect(chatAfter?.users?.map(\.id) == ["u2", "u1"] && chatAfter?.admins?.map(\.id) == ["u2", "u1"])
    }

    @Test func softDeletedArchivesAreKeptAcrossReopeningAndRestore() throws {
        let folder = try TemporaryFolder()
        let store = try Store(.file(folder.file()), schema: ChatModelsSchema.self)
        try store.write { try Self.seed(&$0) }
        try store.write { context in try context.find(Message.self, id: "m1")!.asDeleted(in: context)!.save(to: &context) }
        let archived = try #require(Deleted<Message>.query(in: store.context).resolve().first)
        store.close()

        let reopened = try Store(.file(folder.file()), schema: ChatModelsSchema.self)
        #expect(reopened.context.find(Message.self, id: "m1") == nil)
        let loaded = try #require(Deleted<Message>.query(in: reopened.context).resolve().first)
        #expect(loaded.entity.text == archived.entity.text && loaded.deletedAt == archived.deletedAt)
        #expect(loaded.entity.$chat.id == "c1" && loaded.entity.$author.id == "u1", "the archive keeps the links restore relinks")
        try reopened.write { context in try Deleted<Message>.query(in: context).resolve()[0].restore(in: &context) }
        reopened.close()

        let restored = try Store(.file(folder.file()), schema: ChatModelsSchema.self)
        #expect(Deleted<Message>.query(in: restored.context).resolve().isEmpty)
        #expect(Chat.query("c1", in: restored.context).with(\.$messages).resolve()?.messages?.map(\.id).sorted() == ["m1", "m2"])
    }
}
