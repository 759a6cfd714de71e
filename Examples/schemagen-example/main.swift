import ChatModels
import Foundation
import SchemaRuntime

// Types below are generated at build time from Schemas/Chat/*.schema.
var context = Context()
let chat = Chat(
    id: "1",
    users: .relation([User(id: "1", name: "Bob"), User(id: "2", name: "Alice")]),
    messages: .relation([
        Message(id: "1", text: "Any thoughts on SchemaGen?", author: .id("1")),
        Message(id: "2", text: "Yes.", author: .id("2")),
    ]),
    admins: .ids(["1"])
)
try chat.save(to: &context)

let bob = User.query("1", in: context)
    .with(\.$chats) { $0.with(\.$messages) { $0.with(\.$author) }.id(\.$admins) }
    .resolve()
print(bob?.prettyDescription() ?? "not found")
