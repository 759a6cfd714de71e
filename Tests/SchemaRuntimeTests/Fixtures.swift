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
}
