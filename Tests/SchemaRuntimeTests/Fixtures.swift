import ChatModels
import SchemaRuntime

enum Fixtures {
    /// The chat from the SwiftletModel README's "How to Save Entities".
    static var readmeChat: Chat {
        Chat(
            id: "1",
            users: .relation([User(id: "1", name: "Bob"), User(id: "2", name: "Alice")]),
            messages: .relation([
                Message(id: "1", text: "Any thoughts on SwiftletModel?", author: .id("1")),
                Message(id: "2", text: "Yes.", author: .id("2")),
            ]),
            admins: .ids(["1"])
        )
    }

    /// Alice's reply to the first message, in the same chat.
    static var readmeReply: Message {
        Message(id: "3", text: "Reply", author: .id("2"), chat: .id("1"), replyTo: .id("1"))
    }
}

extension Message {
    /// The message with links in its required relations (`author`, `chat`) where it has none,
    /// for tests about something else: a message cannot be stored without them. The ids are
    /// of entities that are never saved (links to ids saved later are allowed).
    func withRequiredLinks() -> Message {
        var message = self
        if message.$author.isNone { message.$author = .id("someone") }
        if message.$chat.isNone { message.$chat = .id("somewhere") }
        return message
    }

    /// The message with an author where it has none, for messages saved inside a chat's
    /// `messages`, which links their chat.
    func withAuthor() -> Message {
        var message = self
        if message.$author.isNone { message.$author = .id("someone") }
        return message
    }
}
