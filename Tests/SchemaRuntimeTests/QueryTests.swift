import ChatModels
import SchemaRuntime
import Testing

/// README "How to Query Entities": nested, bulk nested, combined and related queries.
@Suite struct QueryTests {
    let context: Context

    init() throws {
        var context = Context()
        try Fixtures.readmeChat.save(to: &context)
        try Fixtures.readmeReply.save(to: &context)
        self.context = context
    }

    @Test func nestedQueryFromTheOtherEnd() throws {
        let user = try #require(User
            .query("1", in: context)
            .with(\.$chats) { chat in
                chat.with(\.$messages) { message in
                    message.with(\.$replies) { reply in
                        reply.with(\.$author).id(\.$replyTo)
                    }
                    .id(\.$author)
                    .id(\.$chat)
                }
                .with(\.$users)
                .id(\.$admins)
            }
            .resolve())
        let chat = try #require(user.chats?.first)
        #expect(chat.users?.map(\.name) == ["Bob", "Alice"])
        #expect(chat.$admins.ids == ["1"])
        #expect(chat.messages?.map(\.id) == ["1", "2", "3"])
        let first = try #require(chat.messages?.first)
        #expect(first.$author.id == "1" && first.$chat.id == "1")
        #expect(first.replies?.map(\.id) == ["3"])
        #expect(first.replies?.first?.author?.name == "Alice")
        #expect(first.replies?.first?.$replyTo.id == "1")
        // Relations not asked for stay unresolved.
        #expect(first.$attachment.isNone && first.$viewedBy.isNone)
    }

    @Test func bothResolveStylesAgree() throws {
        let bound = User.query("1", in: context).with(\.$chats).resolve()
        let unbound = User.query("1").with(\.$chats).resolve(in: context)
        #expect(bound == unbound)
        #expect(bound?.chats?.count == 1)
    }

    @Test func bulkNestedQueryResolvesLevelByLevel() throws {
        let user = try #require(User.query("1", in: context).with(.entities, .fragments, .ids).resolve())
        let chat = try #require(user.chats?.first)
        #expect(user.$chats == .relation([chat]))
        // Second level: fragments; third: ids.
        let message = try #require(chat.messages?.first)
        #expect(chat.$messages == .fragment(chat.messages!))
        #expect(message.$author.id == "1" && message.author == nil)
        #expect(message.$replies.ids == ["3"] && message.replies == nil)
    }

    @Test func bulkNestedTerminatesOnCycles() throws {
        // replies/replyTo and users/chats form cycles; the number of levels bounds the walk.
        let message = try #require(Message.query("3", in: context)
            .with(.entities, .entities, .entities, .entities, .entities, .ids).resolve())
        // Follow the cycle 3 -> replyTo 1 -> replies [.., 3] -> replyTo 1 -> ... level by level.
        var levels: [String] = []
        var current = message
        for depth in 0..<10 {
            if depth % 2 == 0 {
                guard let next = current.replyTo else { levels.append(current.$replyTo == .id("1") ? "id 1" : "end"); break }
                levels.append(next.id)
                current = next
            } else {
                guard let next = current.replies?.first(where: { $0.id == "3" }) else {
                    levels.append(current.$replies == .ids(["3"]) ? "ids 3" : "end")
                    break
                }
                levels.append(next.id)
                current = next
            }
        }
        #expect(levels == ["1", "3", "1", "3", "1", "ids 3"])
        // Another cycle ends at the same depth: message -> chat -> users -> chats -> messages -> chat.
        let first = try #require(Message.query("1", in: context)
            .with(.entities, .entities, .entities, .entities, .entities, .ids).resolve())
        let chat = try #require(first.chat)
        let user = try #require(chat.users?.first { $0.id == "1" })
        let messages = try #require(user.chats?.first?.messages)
        #expect(messages.map(\.id) == ["1", "2", "3"])
        #expect(messages.allSatisfy { $0.chat?.$users == .ids(["1", "2"]) })
    }

    @Test func combiningBulkWithNested() throws {
        let user = try #require(User.query("1", in: context).with(\.$chats) { $0.with(.entities) }.resolve())
        let chat = try #require(user.chats?.first)
        #expect(chat.messages?.count == 3 && chat.users?.count == 2 && chat.admins?.count == 1)
        #expect(user.$adminOf.isNone)
    }

    @Test func relatedQueries() throws {
        let chats: [Chat] = User.query("1", in: context).related(\.$chats).resolve()
        #expect(chats.map(\.id) == ["1"])
        let author = Message.query("3", in: context).related(\.$author).resolve()
        #expect(author?.name == "Alice")
        #expect(Message.query("nope", in: context).related(\.$author).resolve() == nil)
    }

    @Test func listQueriesKeepTheirDocumentedOrder() throws {
        #expect(Message.query(in: context).resolve().map(\.id) == ["1", "2", "3"])
        #expect(Message.query(["3", "missing", "1"], in: context).resolve().map(\.id) == ["3", "1"])
        #expect(Message.query(in: context).count() == 3)
        #expect(Message.query(["3", "missing"], in: context).count() == 1)
    }

    @Test func queryCapturesASnapshot() throws {
        var context = self.context
        let query = User.query("1", in: context)
        try User(id: "1", name: "Changed").save(to: &context)
        #expect(query.resolve()?.name == "Bob")
        #expect(query.resolve(in: context)?.name == "Changed")
    }
}
