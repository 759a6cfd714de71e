import ChatModels
import SchemaRuntime
import SchemaStore

/// A write that deletes a message and saves it again, which must move it to the end of
/// storage order in every store, resident or reading on demand, on a file or a server.
public enum DeletedAndSavedAgain {
    /// The order every store must read after ``write(to:)``: m1 last.
    public static let expected = ["m2", "m3", "m1"]

    /// Writes a chat of three messages, m1 to m3, then deletes m1 and saves it again in one
    /// write; returns the messages in the order `store` reads them, and the chat's list.
    public static func write(to store: Store) throws -> (messages: [String], chat: [String]) {
        try store.write { context in
            try User(id: "u1", name: "Ann").save(to: &context)
            try Chat(id: "c1", title: "general").save(to: &context)
            for id in ["m1", "m2", "m3"] { try Message(id: id, text: "first", author: .id("u1"), chat: .id("c1")).save(to: &context) }
        }
        try store.write { context in
            try Message.delete(id: "m1", from: &context)
            try Message(id: "m1", text: "again", author: .id("u1"), chat: .id("c1")).save(to: &context)
        }
        return try store.read { context in
            (messages(in: context), Chat.query("c1", in: context).with(\.$messages).resolve()?.messages?.map(\.id) ?? [])
        }
    }

    /// The messages `context` holds, in its order.
    public static func messages(in context: Context) -> [String] {
        Message.query(in: context).resolve().map(\.id)
    }
}
