import ChatModels
import DeterministicRandom
import SchemaRuntime

/// One random write to a chat graph over few ids, so that writes collide: saves with links,
/// unique keys that collide (usernames upsert, emails throw), edits of to-many lists, deletes
/// that cascade, an entity deleted and saved again in one write. The same seed gives the same writes, in a test and in a child process, so a
/// test can replay what children committed.
public struct RandomChatWrite: Sendable, CustomStringConvertible {
    /// What the write does, for failure messages.
    public let description: String
    /// Applies the write to `context`; throws what the store throws for it (a unique email).
    public let apply: @Sendable (inout Context) throws -> Void

    /// The next write drawn from `random`.
    public static func next(_ random: inout SplitMix64) -> RandomChatWrite {
        let user = "u\(Int.random(in: 0..<6, using: &random))", chat = "c\(Int.random(in: 0..<3, using: &random))"
        let message = "m\(Int.random(in: 0..<10, using: &random))", other = "u\(Int.random(in: 0..<6, using: &random))"
        let number = Int.random(in: 0..<4, using: &random)
        switch Int.random(in: 0..<7, using: &random) {
        case 0:
            return RandomChatWrite(description: "save user \(user) username n\(number)") { context in
                try User(id: user, name: "name \(number)", username: "n\(number)", age: number).save(to: &context)
            }
        case 1:
            return RandomChatWrite(description: "save user \(user) email e\(number)") { context in
                try User(id: user, name: "mail \(number)", email: "e\(number)@x").save(to: &context)
            }
        case 2:
            return RandomChatWrite(description: "save chat \(chat) users \(user), \(other)") { context in
                try Chat(id: chat, title: number == 0 ? nil : "t\(number)", users: .ids([user, other])).save(to: &context)
            }
        case 3:
            return RandomChatWrite(description: "save message \(message) in \(chat) by \(user)") { context in
                try Message(id: message, text: ["hello", "bye ünïcødé", "reply with hello", "HeLLo 1"][number], timestamp: number, tags: number > 1 ? ["a", "b"] : [],
                            author: .id(user), chat: .id(chat), viewedBy: .ids([other])).save(to: &context)
            }
        case 4:
            return RandomChatWrite(description: "append viewer \(other) to \(message)") { context in
                guard var found = context.find(Message.self, id: message) else { return }
                found.$viewedBy = .appending(ids: [other])
                try found.save(to: &context)
            }
        case 5:
            return RandomChatWrite(description: "delete chat \(chat)") { context in try Chat.delete(id: chat, from: &context) }
        default:
            guard number == 0 else {
                return RandomChatWrite(description: "delete message \(message)") { context in try Message.delete(id: message, from: &context) }
            }
            // Deleted and saved again in one write: the id gets a new key in the graph
            // (nothing references the old one), and the store must delete before inserting.
            return RandomChatWrite(description: "delete message \(message) and save it again in \(chat)") { context in
                try Message.delete(id: message, from: &context)
                try Message(id: message, text: "again", timestamp: 9, author: .id(user), chat: .id(chat)).save(to: &context)
            }
        }
    }
}
