import ChatModels
import DeterministicRandom
@testable import SchemaRuntime
import Testing

/// Below `Context.recursiveEmbeddingLimit` levels, embedded entities are saved by an explicit
/// stack instead of generated `save` recursing. Both must do exactly the same thing: random
/// nested chat graphs are saved both ways, onto the same random starting state, and every
/// entity, link and order must agree.
@Suite struct EmbeddedSaveTests {
    @Test func explicitStackSavesLikeTheGeneratedRecursion() throws {
        var saved = 0
        for seed in UInt64(0)..<60 {
            var random = SplitMix64(seed: seed)
            var start = Context()
            for _ in 0..<3 { try? Self.chat(&random, depth: 3).save(to: &start) }
            let graph = Self.chat(&random, depth: 4)
            let options: MergeStrategy<Chat> = Bool.random(using: &random) ? .fragment : .default

            var recursive = start, iterative = start
            let recursiveResult = Result { try graph.save(to: &recursive, options: options) }
            let iterativeResult = Result { try iterative.transaction { try $0.saveWithExplicitStack(graph, options: options) } }
            // The same outcome, the same error if any, and the same context.
            #expect("\(recursiveResult)" == "\(iterativeResult)", "seed \(seed)")
            #expect(try Snapshot(recursive) == Snapshot(iterative), "seed \(seed)")
            #expect(recursive.ids(of: Message.self) == iterative.ids(of: Message.self), "seed \(seed)")
            #expect(recursive.ids(of: User.self) == iterative.ids(of: User.self), "seed \(seed)")
            #expect(recursive.ids(of: Chat.self) == iterative.ids(of: Chat.self), "seed \(seed)")
            #expect(recursive.ids(of: Attachment.self) == iterative.ids(of: Attachment.self), "seed \(seed)")
            if case .success = recursiveResult { saved += 1 }
        }
        // Some graphs break a required relation (both ways alike); most must save.
        #expect(saved >= 30)
    }

    private static let ids = ["a", "b", "c", "d", "e"]

    /// A chat with embedded users, admins and messages, whose messages embed authors,
    /// attachments, replies and other chats, down to `depth`.
    static func chat(_ random: inout SplitMix64, depth: Int) -> Chat {
        let id = ids.randomElement(using: &random)!
        guard depth > 0 else { return Chat(id: id) }
        var chat = Chat(id: id, title: Bool.random(using: &random) ? "t\(depth)" : nil)
        chat.$users = Bool.random(using: &random) ? .relation(users(&random)) : .fragment(users(&random))
        chat.$admins = .ids(ids.filter { _ in Bool.random(using: &random) })
        let messages = (0..<Int.random(in: 0..<3, using: &random)).map { _ in message(&random, depth: depth - 1) }
        chat.$messages = Bool.random(using: &random) ? .appending(relation: messages) : .relation(messages)
        return chat
    }

    static func users(_ random: inout SplitMix64) -> [User] {
        (0..<Int.random(in: 0..<3, using: &random)).map { _ in
            User(id: ids.randomElement(using: &random)!, name: "n\(Int.random(in: 0..<3, using: &random))")
        }
    }

    static func message(_ random: inout SplitMix64, depth: Int) -> Message {
        var message = Message(id: ids.randomElement(using: &random)!, text: "m\(depth)")
        message.$author = Bool.random(using: &random) ? .id(ids.randomElement(using: &random)!) : .relation(users(&random).first ?? User(id: "a", name: "A"))
        if depth > 0 {
            switch Int.random(in: 0..<3, using: &random) {
            case 0: message.$chat = .relation(chat(&random, depth: depth - 1))
            case 1: message.$chat = .id(ids.randomElement(using: &random)!)
            default: break // linked by the chat that embeds it
            }
            message.$replies = .relation((0..<Int.random(in: 0..<2, using: &random)).map { _ in
                var reply = self.message(&random, depth: depth - 1)
                if reply.$chat.isNone { reply.$chat = .id("a") }
                return reply
            })
            if Bool.random(using: &random) { message.$attachment = .relation(Attachment(id: ids.randomElement(using: &random)!)) }
        }
        return message
    }
}
