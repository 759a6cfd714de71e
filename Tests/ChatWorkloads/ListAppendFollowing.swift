import ChatModels
import SchemaRuntime
@_spi(SchemaStoreTesting) import SchemaStore

/// A follower of a long chat (`Store.refresh()` after another store's commits): messages
/// sent to it arrive as the chat's new links and the new messages' rows only, across several
/// commits at once (the chat's row, which they only relinked, is not read); a removal from
/// the list, or a list written whole, makes it read the list whole. Used alike on a SQLite
/// file and on PostgreSQL.
public enum ListAppendFollowing {
    /// What went wrong, empty when nothing did: the follower's graph differs from the
    /// writer's, or it read other list links than expected.
    public static func check(writer: Store, follower: Store, length: Int = 2000) throws -> [String] {
        var problems: [String] = []
        func message(_ number: Int) -> Message {
            Message(id: "m\(number)", text: "message \(number)", timestamp: number, author: .id("u0"), chat: .id("c0"))
        }
        // `writes`, then the follower's refresh, which must read `expected` list links. A
        // store on a server may follow some commits before the refresh, as their
        // notifications arrive: counted from before the writes.
        func step(_ what: String, reading expected: ClosedRange<Int>, rows expectedRows: ClosedRange<Int>? = nil,
                  _ writes: () throws -> Void) throws {
            let before = follower.listLinksReadFollowing, rowsBefore = follower.rowsReadFollowing
            try writes()
            try follower.refresh()
            let read = follower.listLinksReadFollowing - before, rows = follower.rowsReadFollowing - rowsBefore
            if !expected.contains(read) { problems.append("\(what): read \(read) list links, expected \(expected)") }
            if let expectedRows, !expectedRows.contains(rows) { problems.append("\(what): read \(rows) rows, expected \(expectedRows)") }
            if try ChatGraphText.of(follower.context) != ChatGraphText.of(writer.context) { problems.append("\(what): the graphs differ") }
        }
        // The chat's users and the user's chats, and every message.
        try step("the first commit", reading: length + 2...length + 2) {
            try writer.write { context in
                try User(id: "u0", name: "user").save(to: &context)
                try Chat(id: "c0", title: "long", users: .ids(["u0"])).save(to: &context)
                try (0..<length).map(message).save(to: &context)
            }
        }
        // Three commits, each sending a message: the chat's last three links, and the three
        // messages' rows, not the chat's.
        try step("three appends", reading: 3...3, rows: 3...3) {
            for number in length..<length + 3 { try writer.write { try message(number).save(to: &$0) } }
        }
        // Appended, then removed in a later commit: the list is read whole (after the
        // append alone, if the follower followed that first).
        try step("an append and a removal", reading: length + 3...length + 4) {
            try writer.write { try message(length + 3).save(to: &$0) }
            try writer.write { try Message.delete(id: "m5", from: &$0) }
        }
        // A list written whole, in another order.
        try step("a list written whole", reading: length + 3...length + 3) {
            let reversed = try writer.read { context in Chat.query(in: context).with(.ids).resolve().first?.$messages.ids?.reversed() ?? [] }
            try writer.write { try Chat(id: "c0", messages: .ids(Array(reversed))).save(to: &$0) }
        }
        return problems
    }
}
