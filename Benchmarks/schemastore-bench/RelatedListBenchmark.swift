import BenchModels
import Foundation
import SchemaRuntime
import SchemaStore

/// `schemastore-bench related-lists <path> <messages> [rounds] [chat]`: a chat's newest 20 messages
/// with their authors, read on demand from SQLite, for chats whose messages lie at different
/// depths of the timestamp index. The file is filled once (kept for the next run, so that
/// two builds can be alternated on it); each read is on a snapshot of its own that keeps no
/// rows, so reads everything. Prints the median of `rounds` reads per chat (or of the one
/// named `chat`, for profiling), in ms.
///
/// The chats (message `i` has timestamp `i`):
/// - "newest tenth": the newest 10% of the messages (a walk down the index answers);
/// - "oldest tenth": the oldest 10% (a walk finds none of them; the links answer);
/// - "spread 1,000": 1,000 messages spread over the table;
/// - "100": a chat of 100 (read through its links at once), as every other chat.
enum RelatedListBenchmark {
    static let chats = [("newest tenth", 0), ("oldest tenth", 1), ("spread 1,000", 2), ("100", 3)]

    static func run(path: String, messages: Int, rounds: Int, only: String? = nil) throws {
        let url = URL(fileURLWithPath: path)
        if !FileManager.default.fileExists(atPath: path) {
            let seconds = try OnDemandBenchmark.milliseconds { try fill(url, messages: messages) } / 1000
            print(String(format: "filled %d messages in %.1f s", messages, seconds))
        }
        let store = try Store(.file(url), schema: BenchModelsSchema.self,
                              options: .init(readOnly: true, residency: .onDemand, cachedRowsPerSnapshot: 0))
        defer { store.close() }
        var line = "\(messages) messages, load \(OnDemandBenchmark.loadAverage()):"
        for (name, chat) in chats where only == nil || only == name {
            var times: [Double] = []
            for _ in 0..<rounds {
                times.append(try OnDemandBenchmark.milliseconds {
                    let count = try store.read { context in
                        Chat.query(chat, in: context).related(\.$messages).sorted(by: \.timestamp.desc).limit(20).with(\.$author).resolve().count
                    }
                    precondition(count == 20)
                })
            }
            line += String(format: "  %@ %.2f", name, OnDemandBenchmark.median(times))
        }
        print(line)
    }

    /// Which chat message `index` of `messages` belongs to.
    static func chat(of index: Int, messages: Int) -> Int {
        let tenth = messages / 10
        if index >= messages - tenth { return 0 }
        if index < tenth { return 1 }
        if index % (messages / 1000) == 7 { return 2 }
        if index < tenth + 100 { return 3 }
        return 4 + index / 100
    }

    static func fill(_ url: URL, messages: Int) throws {
        let store = try Store(.file(url), schema: BenchModelsSchema.self, options: .init(residency: .onDemand))
        defer { store.close() }
        try store.write { context in
            for id in 0..<100 { try User(id: id, name: "user\(id)", age: 18 + id % 60).save(to: &context) }
            for id in 0..<(4 + messages / 100) { try Chat(id: id, title: "chat\(id)").save(to: &context) }
        }
        for start in stride(from: 0, to: messages, by: 50_000) {
            try store.write { context in
                for index in start..<min(start + 50_000, messages) {
                    try Message(id: index, text: "hi", timestamp: index, chat: .id(chat(of: index, messages: messages)),
                                author: .id(index % 100)).save(to: &context)
                }
            }
        }
    }
}
