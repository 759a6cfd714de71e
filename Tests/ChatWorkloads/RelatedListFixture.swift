import ChatModels
import DeterministicRandom
import SchemaRuntime
import SchemaStore

/// Chats whose messages lie at different depths of the timestamp index, and random sorted,
/// limited lists of them: what the tests of related lists read in steps (a walk down the
/// sort's index, then the list's links) run on SQLite and on PostgreSQL.
public enum RelatedListFixture {
    /// Seeds `store` with:
    /// - "old": 40 messages, the table's oldest (timestamps 0..<40);
    /// - "sparse": 600, timestamps drawn from 40..<100 but for 30 from 100..<400 (a walk
    ///   newest first finds some of them, often fewer than a limit asks for);
    /// - "busy": 2,400 from 100..<400 (about eight messages to a timestamp, so that the
    ///   walk's last row ties with rows past it);
    /// - "quiet": 100 from 40..<400;
    /// - "empty": none.
    ///
    /// And 520 users, 40 names among them: all in "busy", 5 in "quiet".
    public static func seed(_ store: Store) throws {
        var random = SplitMix64(seed: 2_912)
        try store.write { context in
            for user in 0..<520 { try User(id: "u\(user)", name: "Name \(user % 40)").save(to: &context) }
            try Chat(id: "old").save(to: &context)
            try Chat(id: "sparse").save(to: &context)
            try Chat(id: "busy", users: .ids((0..<520).map { "u\($0)" })).save(to: &context)
            try Chat(id: "quiet", users: .ids((10..<15).map { "u\($0)" })).save(to: &context)
            try Chat(id: "empty").save(to: &context)
            let chats = [("old", 40, 0..<40), ("sparse", 600, 40..<100), ("busy", 2_400, 100..<400), ("quiet", 100, 40..<400)]
            for (chat, count, timestamps) in chats {
                for n in 0..<count {
                    let timestamp = chat == "old" ? n : Int.random(in: chat == "sparse" && n >= 570 ? 100..<400 : timestamps, using: &random)
                    try Message(id: "\(chat) \(n)", text: chat, timestamp: timestamp, author: .id("u1"), chat: .id(chat)).save(to: &context)
                }
            }
        }
    }

    /// A limited list of one chat's messages, newest or oldest first, perhaps filtered.
    public struct MessageList: Sendable, CustomStringConvertible {
        public let chat: String
        public let descending: Bool
        public let limit: Int
        public let offset: Int
        /// Only messages at or after this timestamp, if any.
        public let floor: Int?

        /// Whether the chat has more messages than a walk's bound on links: "sparse" and "busy".
        public var isLong: Bool { ["sparse", "busy"].contains(chat) }

        /// The ids of the list's messages, in order.
        public func ids(in context: Context) -> [String] {
            var list = Chat.query(chat, in: context).related(\.$messages)
            if let floor { list = list.filter(\.timestamp >= floor) }
            let sorted = descending ? list.sorted(by: \.timestamp.desc) : list.sorted(by: \.timestamp)
            return sorted.limit(limit, offset: offset).resolve().map(\.id)
        }

        public var description: String {
            "chat \(chat), \(descending ? "newest" : "oldest") first, limit \(limit), offset \(offset), timestamp >= \(floor.map(String.init) ?? "any")"
        }
    }

    /// `count` random lists, every chat in turn.
    public static func messageLists(_ count: Int) -> [MessageList] {
        var random = SplitMix64(seed: 29)
        return (0..<count).map { round in
            let descending = Bool.random(using: &random)
            let limit = [1, 3, 7, 20, 50, 51][Int.random(in: 0..<6, using: &random)]
            let offset = Bool.random(using: &random) ? 0 : Int.random(in: 1..<40, using: &random)
            let floor = Bool.random(using: &random) ? nil : Int.random(in: 0..<400, using: &random)
            return MessageList(chat: ["old", "sparse", "busy", "quiet", "empty"][round % 5], descending: descending, limit: limit,
                               offset: offset, floor: floor)
        }
    }

    /// Limited lists of a chat's users by name, both directions: a text sort served by the
    /// users' index on names (ties). "busy" has more users than a walk's bound on links,
    /// "quiet" fewer.
    public static func userLists() -> [(name: String, ids: @Sendable (Context) -> [String])] {
        var lists: [(name: String, ids: @Sendable (Context) -> [String])] = []
        for chat in ["busy", "quiet", "empty"] {
            for descending in [false, true] {
                for (limit, offset) in [(1, 0), (6, 2), (20, 30)] {
                    lists.append(("users of \(chat) by name\(descending ? " descending" : ""), limit \(limit), offset \(offset)", { context in
                        let users = Chat.query(chat, in: context).related(\.$users)
                        return (descending ? users.sorted(by: \.name.desc) : users.sorted(by: \.name)).limit(limit, offset: offset).resolve().map(\.id)
                    }))
                }
            }
        }
        return lists
    }

    /// Seeds `store` with chat "tied", whose 15 messages among the newest hold 10 at
    /// timestamp 0, of which a walk of `walkedRows` rows holds only 7, and `linkedRows` older
    /// ones (so that it is walked for); and chat "busy" with the other newest. Half of the 10
    /// are moved away and back in a later write (PostgreSQL's index then holds them after the
    /// others: its equal keys are in the order of their rows); they come first in the chat's
    /// list. A walk cut at its end would answer with the wrong half.
    public static func seedTiedGroup(_ store: Store, walkedRows: Int, linkedRows: Int) throws {
        let newest = walkedRows - 7
        try store.write { context in
            try User(id: "u", name: "Ann").save(to: &context)
            try Chat(id: "busy").save(to: &context)
            try Chat(id: "tied").save(to: &context)
            for n in 0..<10 {
                try Message(id: "tied at 0 \(n)", text: "tied", timestamp: 0, author: .id("u"), chat: .id("tied")).save(to: &context)
            }
            for n in 0..<linkedRows {
                try Message(id: "tied older \(n)", text: "tied", timestamp: -2 - n, author: .id("u"), chat: .id("tied")).save(to: &context)
            }
            for n in 1...newest {
                let chat = n % 60 == 0 && n / 60 <= 15 ? "tied" : "busy"
                try Message(id: "\(chat) \(n)", text: chat, timestamp: n, author: .id("u"), chat: .id(chat)).save(to: &context)
            }
        }
        for timestamp in [-1, 0] {
            try store.write { context in
                for n in 0..<5 {
                    guard var message = Message.query("tied at 0 \(n)", in: context).resolve() else { throw MissingMessage() }
                    message.timestamp = timestamp
                    try message.save(to: &context)
                }
            }
        }
    }

    /// The newest 20 messages of chat "tied" (``seedTiedGroup(_:walkedRows:linkedRows:)``).
    public static func newestTied(in context: Context) -> [String] {
        Chat.query("tied", in: context).related(\.$messages).sorted(by: \.timestamp.desc).limit(20).resolve().map(\.id)
    }

    /// The half of the tied group moved away and back: the last 5 of chat "tied"'s newest 20.
    public static let movedHalf = (0..<5).map { "tied at 0 \($0)" }

    private struct MissingMessage: Error {}
}
