import BenchModels
import DeterministicRandom
import Foundation
import SchemaRuntime
import SchemaStore

/// `schemastore-bench write-growth [messages...]`: how the cost of one small write grows
/// with the graph it goes into. Per size n: n messages (8 words each, full-text indexed) in
/// chats of 100, their authors among n / 100 users. Then, alternated 5 times, 200 writes of one
/// message each (medians printed, ms):
/// - in memory, as a store writes: a copy of the graph is written and replaces it, the old
///   one dropped;
/// - the same on a resident file store (`store.write`);
/// the same two for one message sent to a chat holding every message (a channel), and to a
/// chat of 2,000 messages (growing to about 3,000 as the writes go); and the same two for a
/// write changing the text of an old message (a random one of the first n).
/// A write touches a constant number of rows, so its cost should grow no faster than log n.
enum WriteGrowthBenchmark {
    static func run(sizes: [Int]) throws {
        print("one message in its own write, by graph size (ms, medians of 5 x 200)")
        print("size".padding(toLength: 10, withPad: " ", startingAt: 0)
              + ["memory", "file store", "memory, channel", "file, channel", "memory, 2k chat", "file, 2k chat", "memory, edit", "file, edit"].map { $0.padding(toLength: 17, withPad: " ", startingAt: 0) }.joined())
        for size in sizes { try run(size: size) }
    }

    static func run(size: Int) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("write-growth-\(ProcessInfo.processInfo.processIdentifier)-\(size)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try Store(.file(folder.appendingPathComponent("bench.store")), schema: BenchModelsSchema.self, options: .init(residency: .resident))
        defer { store.close() }
        try store.write { context in
            for chat in chats(messages: size) { try chat.save(to: &context) }
        }
        var memory = store.context
        var nextID = size
        /// One message into `chat`, on a copy of `memory` that then replaces it.
        func inMemory(chat: Int) throws -> Double {
            try OnDemandBenchmark.milliseconds {
                var copy = memory
                try message(&nextID, chat: chat).save(to: &copy)
                memory = copy
            }
        }
        func inStore(chat: Int) throws -> Double {
            try OnDemandBenchmark.milliseconds {
                try store.write { try message(&nextID, chat: chat).save(to: &$0) }
            }
        }
        let own = try alternate(try inMemory(chat: 0), try inStore(chat: 0))
        // Every message into one chat, in memory and in the store.
        let all = store.context.ids(of: Message.self)
        try store.write { try Chat(id: -1, title: "channel", messages: .ids(all)).save(to: &$0) }
        memory = store.context
        let channel = try alternate(try inMemory(chat: -1), try inStore(chat: -1))
        // A chat of 2,000 messages (the first ones, moved from their chats of 100).
        try store.write { try Chat(id: -2, title: "busy", messages: .ids(Array(all.prefix(2_000)))).save(to: &$0) }
        memory = store.context
        let busy = try alternate(try inMemory(chat: -2), try inStore(chat: -2))
        // An old message's text changed: its row's chunk, and the column's chunk index.
        var random = SplitMix64(seed: 7)
        var edits = 0
        func edited(in context: Context) -> Message {
            var message = Message.query(Int.random(in: 0..<size, using: &random), in: context).resolve()!
            edits += 1
            message.text = "edited \(edits)"
            return message
        }
        let edit = try alternate(try OnDemandBenchmark.milliseconds {
            var copy = memory
            try edited(in: copy).save(to: &copy)
            memory = copy
        }, try OnDemandBenchmark.milliseconds {
            try store.write { try edited(in: $0).save(to: &$0) }
        })
        print("\(size)".padding(toLength: 10, withPad: " ", startingAt: 0)
              + [own.0, own.1, channel.0, channel.1, busy.0, busy.1, edit.0, edit.1].map { String(format: "%-17.3f", $0) }.joined())
    }

    /// Medians of `first` and `second`, each run 200 times a round, the rounds alternated.
    static func alternate(_ first: @autoclosure () throws -> Double, _ second: @autoclosure () throws -> Double) rethrows -> (Double, Double) {
        var firsts: [Double] = [], seconds: [Double] = []
        for _ in 0..<5 {
            for _ in 0..<200 { firsts.append(try first()) }
            for _ in 0..<200 { seconds.append(try second()) }
        }
        return (firsts.sorted()[firsts.count / 2], seconds.sorted()[seconds.count / 2])
    }

    /// Message `id` (then the next id) into chat `chat`, by user 0.
    static func message(_ id: inout Int, chat: Int) -> Message {
        defer { id += 1 }
        return Message(id: id, text: "a new message \(id)", timestamp: id, chat: .id(chat), author: .id(0))
    }

    /// `messages` messages in chats of 100 with their authors, as `schemastore-bench` makes them.
    static func chats(messages: Int) -> [Chat] {
        var random = SplitMix64(seed: 42)
        let vocabulary = (0..<2000).map { "word\($0)" }
        let chatCount = max(1, messages / 100)
        let users = (0..<chatCount).map { User(id: $0, name: "user\($0)", age: 18 + $0 % 60) }
        return (0..<chatCount).map { chatID in
            Chat(id: chatID, title: "chat\(chatID)", users: .relation([users[chatID]]),
                 messages: .relation((0..<min(100, messages - chatID * 100)).map { index in
                     Message(id: chatID * 100 + index,
                             text: (0..<8).map { _ in vocabulary.randomElement(using: &random)! }.joined(separator: " "),
                             timestamp: Int.random(in: 0..<1_000_000_000, using: &random),
                             author: .id(Int.random(in: 0..<chatCount, using: &random)))
                 }))
        }
    }
}
