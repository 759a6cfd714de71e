import BenchModels
import Foundation
import SchemaRuntime
import SchemaStore

/// `schemastore-bench follow-append [messages...]`: two resident stores on one SQLite file,
/// a writer and a follower. Per size, one chat holds that many messages; then the writer
/// sends 21 messages to it, one write each, and the follower catches up (`refresh()`)
/// after each. Prints the medians (ms) of the write and of the follower's catch-up: the
/// catch-up should not grow with the chat.
enum FollowBenchmark {
    static func run(sizes: [Int]) throws {
        print("one message sent to a chat of n messages, a follower catching up (ms, medians of 21)")
        for size in sizes {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("follow-bench-\(ProcessInfo.processInfo.processIdentifier)-\(size)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let file = folder.appendingPathComponent("bench.store")
            let writer = try Store(.file(file), schema: BenchModelsSchema.self, options: .init(residency: .resident))
            try writer.write { context in
                try User(id: 0, name: "user", age: 30).save(to: &context)
                try Chat(id: 0, title: "long", messages: .relation((0..<size).map {
                    Message(id: $0, text: "message \($0)", timestamp: $0, author: .id(0))
                })).save(to: &context)
            }
            let follower = try Store(.file(file), schema: BenchModelsSchema.self, options: .init(residency: .resident))
            var writes: [Double] = [], catchUps: [Double] = []
            for index in 0..<21 {
                writes.append(try OnDemandBenchmark.milliseconds {
                    try writer.write { try Message(id: size + index, text: "new", timestamp: size + index, chat: .id(0), author: .id(0)).save(to: &$0) }
                })
                catchUps.append(try OnDemandBenchmark.milliseconds { try follower.refresh() })
            }
            guard follower.context.count(of: Message.self) == size + 21 else { fatalError("the follower missed messages") }
            print("  \(size) messages: write \(String(format: "%.3f", writes.sorted()[10])), follower catches up \(String(format: "%.3f", catchUps.sorted()[10]))")
            writer.close()
            follower.close()
        }
    }
}
