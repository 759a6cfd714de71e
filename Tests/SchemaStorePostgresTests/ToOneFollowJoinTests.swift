import ChatModels
import Foundation
import SchemaRuntime
@_spi(SchemaStoreTesting) @testable import SchemaStore
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// On a server, a list's select also reads the to-one links it follows that are stored with
/// its rows, and the rows they link to (`LEFT JOIN`s, ``SubgraphLoader``): a chat's newest
/// messages with their authors in one round trip, not two, with the answers of a resident
/// store.
@Suite(.serialized) struct ToOneFollowJoinTests {
    /// Chat c1 with 30 messages by three authors (u3 wrote none), and chat c2 with one.
    static func seed(_ store: Store) throws {
        try store.write { context in
            for user in 1...3 { try User(id: "u\(user)", name: "User \(user)").save(to: &context) }
            try Chat(id: "c1", title: "general").save(to: &context)
            try Chat(id: "c2", title: "random").save(to: &context)
            for n in 0..<30 {
                try Message(id: "m\(n)", text: "message \(n)", timestamp: n, author: .id("u\(1 + n % 2)"), chat: .id("c1")).save(to: &context)
            }
            try Message(id: "other", text: "elsewhere", timestamp: 100, author: .id("u3"), chat: .id("c2")).save(to: &context)
        }
    }

    /// A store on demand on a new database, seeded, and a resident store on the same one.
    static func stores(_ cluster: TemporaryPostgresCluster, _ name: String) throws -> (onDemand: Store, resident: Store) {
        let (store, configuration) = try AssumedNewWriteTests.store(cluster, name)
        try seed(store)
        return (store, try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .resident)))
    }

    /// `query` read by `store` in a scope of its own: its answer, expected to be what
    /// `resident` answers, and the round trips it took.
    static func read(_ query: @Sendable (Context) -> [String], on store: Store, beside resident: Store, _ comment: Comment? = nil,
                     sourceLocation: SourceLocation = #_sourceLocation) throws -> (answer: [String], roundTrips: Int) {
        let before = store.onDemandStatistics.roundTrips
        let answer = try store.read(query)
        let roundTrips = store.onDemandStatistics.roundTrips - before
        #expect(answer == query(resident.context), comment, sourceLocation: sourceLocation)
        return (answer, roundTrips)
    }

    /// What a read shows: each message's id and its author's name, in order.
    static func shown(_ messages: [Message], in context: Context) -> [String] {
        messages.map { "\($0.id) by \($0.author?.name ?? "nobody")" }
    }

    @Test func aListWithItsAuthorsIsReadInOneRoundTripAndAnswersAsInMemory() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, resident) = try Self.stores(cluster, "tooneljoin")
        defer { store.close(); resident.close() }
        let queries: [(String, @Sendable (Context) -> [String])] = [
            ("a chat's newest messages", { context in
                Self.shown(Chat.query("c1", in: context).related(\.$messages).sorted(by: \.timestamp.desc).limit(20).with(\.$author).resolve(), in: context)
            }),
            ("every chat's newest messages", { context in
                Self.shown(Message.query(in: context).sorted(by: \.timestamp.desc).limit(5).with(\.$author).resolve(), in: context)
            }),
            ("messages of one author, filtered", { context in
                Self.shown(Message.query(in: context).filter(\.timestamp < 7).sorted(by: \.timestamp).with(\.$author).resolve(), in: context)
            }),
            ("one message by its id", { context in
                Self.shown(Message.query("m5", in: context).with(\.$author).resolve().map { [$0] } ?? [], in: context)
            }),
            ("messages by their ids", { context in
                Self.shown(Message.query(["m8", "other", "m3"], in: context).with(\.$author).resolve(), in: context)
            }),
            ("messages by their ids, filtered", { context in
                Self.shown(Message.query(["m8", "other", "m3"], in: context).filter(\.timestamp > 4).with(\.$author).resolve(), in: context)
            }),
        ]
        for (name, query) in queries {
            let (onDemand, roundTrips) = try Self.read(query, on: store, beside: resident, "\(name)")
            #expect(roundTrips == 1, "\(name)")
            #expect(!onDemand.isEmpty && !onDemand.contains { $0.hasSuffix("nobody") }, "\(name)")
        }
        // The rows and links one query read serve the next in the same scope; the links
        // read again with the rows change nothing.
        let twice = try store.read { context in
            let first = Self.shown(Chat.query("c1", in: context).related(\.$messages).sorted(by: \.timestamp.desc).limit(3).with(\.$author).resolve(), in: context)
            let second = Self.shown(Message.query(in: context).sorted(by: \.timestamp.desc).limit(4).with(\.$author).resolve(), in: context)
            return first + second
        }
        #expect(twice == ["m29 by User 2", "m28 by User 1", "m27 by User 2", "other by User 3", "m29 by User 2", "m28 by User 1", "m27 by User 2"])
        // `explainSQL` shows the select as it runs, and the server's plan for it.
        let explained = try #require(store.explainSQL(Message.query(in: store.context).sorted(by: \.timestamp.desc).limit(5).with(\.$author)))
        #expect(explained.sql.contains("LEFT JOIN \"Message.author\""), "\(explained.sql)")
        #expect(!explained.plan.isEmpty)
    }

    /// Followed through a list: a chat, then its messages' links and rows with their
    /// authors (one round trip), where the authors took one more.
    @Test func aListFollowedReadsTheToOneLinksOfItsRowsWithThem() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, resident) = try Self.stores(cluster, "tooneonward")
        defer { store.close(); resident.close() }
        let query: @Sendable (Context) -> [String] = { context in
            Chat.query(["c1", "c2"], in: context).with(\.$messages) { $0.with(\.$author) }.resolve().flatMap { chat in
                [chat.title ?? "untitled"] + Self.shown(chat.messages ?? [], in: context)
            }
        }
        let (onDemand, roundTrips) = try Self.read(query, on: store, beside: resident)
        #expect(roundTrips == 2)
        #expect(onDemand.count == 33 && onDemand.last == "other by User 3")
    }

    /// A to-one link read from the other end (a message's chat, stored as the chat's list,
    /// which holds a message once at most) joins too, beside one stored with the message.
    @Test func aToOneLinkStoredAsTheOtherEndsListJoinsToo() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let (store, resident) = try Self.stores(cluster, "tooneinverse")
        defer { store.close(); resident.close() }
        let query: @Sendable (Context) -> [String] = { context in
            Message.query(in: context).sorted(by: \.timestamp.desc).limit(3).with(\.$chat).with(\.$author).resolve().map {
                "\($0.id) in \($0.chat?.title ?? "none") by \($0.author?.name ?? "nobody")"
            }
        }
        let (onDemand, roundTrips) = try Self.read(query, on: store, beside: resident)
        #expect(roundTrips == 1)
        #expect(onDemand == ["other in random by User 3", "m29 in general by User 2", "m28 in general by User 1"])
        let explained = try #require(store.explainSQL(Message.query(in: store.context).sorted(by: \.timestamp.desc).limit(3).with(\.$chat)))
        #expect(explained.sql.contains("LEFT JOIN \"Chat.messages\" ON \"Chat.messages\".\"target\" = \"Message\".\"id\""), "\(explained.sql)")
    }
}
