import ChatModels
import DeterministicRandom
import SchemaRuntime

/// The ranked full-text workload the on-demand tests compare with a resident store: messages
/// of ``RandomText`` in one chat, edited, replaced and deleted in rounds, and ranked `matches`
/// queries over them (alone, limited, with another condition, a chat's messages, listed ids).
public enum RankedMatchWorkload {
    /// The first write: a user, a chat and 40 messages.
    public static func start(_ random: inout SplitMix64) -> @Sendable (inout Context) throws -> Void {
        let texts = (0..<40).map { _ in RandomText.next(&random) }
        return { context in
            try User(id: "u", name: "U").save(to: &context)
            try Chat(id: "c", title: "C").save(to: &context)
            for (index, text) in texts.enumerated() { try Message(id: "m\(index)", text: text, author: .id("u"), chat: .id("c")).save(to: &context) }
        }
    }

    /// A round: `edits` messages among `ids` ids (15 among 60 by default) saved with new
    /// texts or deleted. Large rounds write postings in several statements and batches.
    public static func round(_ random: inout SplitMix64, edits count: Int = 15, ids: Int = 60) -> @Sendable (inout Context) throws -> Void {
        let edits = (0..<count).map { _ -> (String, String?) in
            let id = "m\(Int.random(in: 0..<ids, using: &random))"
            return (id, Int.random(in: 0..<4, using: &random) == 0 ? nil : RandomText.next(&random))
        }
        return { context in
            for (id, text) in edits {
                if let text {
                    try Message(id: id, text: text, author: .id("u"), chat: .id("c")).save(to: &context)
                } else {
                    try Message(id: id, text: "").delete(from: &context)
                }
            }
        }
    }

    /// Ranked queries for one random query text.
    public static func queries(_ random: inout SplitMix64) -> (text: String, lists: [ContextFreeQueryList<Message>]) {
        let query = RandomText.query(&random)
        let limit = Int.random(in: 1...12, using: &random)
        let listed = (0..<20).map { _ in "m\(Int.random(in: 0..<60, using: &random))" }
        return (query, [Message.query().filter(.string(\.text, matches: query)),
                        Message.query().filter(.string(\.text, matches: query)).limit(limit),
                        Message.query().filter(.string(\.text, matches: query) && \.timestamp == 0),
                        // A chat's messages and a list of ids: ranked against the whole table.
                        Chat.query("c").related(\.$messages).filter(.string(\.text, matches: query)).limit(limit),
                        Message.query(listed).filter(.string(\.text, matches: query))])
    }
}
