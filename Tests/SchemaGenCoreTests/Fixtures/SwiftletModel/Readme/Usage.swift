// The README's examples, written against the converted models: this file type-checks with
// them and SchemaRuntime (SwiftletModelImportTests), with only the import changed.
import Foundation
import SchemaRuntime

func readmeExamples() throws {
    var context = Context()
    let chat = Chat(
        id: "1",
        users: .relation([User(id: "1", firstName: "Bob", lastName: "B", username: "bob", email: "bob@x")]),
        messages: .relation([Message(id: "1", text: "Hello", author: .id("1"))]),
        admins: .ids(["1"])
    )
    try chat.save(to: &context)
    var message = Message(id: "2", text: "Hi", author: .id("1"), chat: .id("1"))
    message.$replyTo = .id("1")
    try message.save(to: &context)

    let user = User
        .query("1", in: context)
        .with(\.$chats) { $0.with(\.$messages) { $0.with(\.$attachment).id(\.$replyTo) }.id(\.$admins) }
        .resolve()
    _ = user?.fullName
    let adults: [User] = User.filter(\.age > 18, in: context).sorted(by: \.lastName, \.firstName).resolve()
    let active = User.filter(\.status == .active, in: context).filter(\.age == 3).resolve()
    let found = User.query(in: context).filter(.string(\.firstName, \.lastName, matches: "bob")).resolve()
    let first = User.query(in: context).sorted(by: \.age.desc).first().resolve()
    _ = (adults, active, found, first)
    try User(id: "1", firstName: "Bob", lastName: "B", username: "bob", email: "bob@x")
        .save(to: &context, options: User.fragmentMergeStrategy)
    try chat.delete(from: &context)
    try User.delete(id: "1", from: &context)
}
