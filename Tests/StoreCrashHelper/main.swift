import ChatModels
import Foundation
import SchemaStore

// store-crash-helper <store path> <first write> <writes>
//
// Commits numbered writes to a chat store, printing each number once its commit returned.
// Write n saves message "m<n>" and sets chat "counter"'s title to "<n>", in one transaction:
// after a kill, the store must hold messages m0..<k and title k - 1 for some k, never a part
// of a write. The crash-safety test kills this process at random moments.
let arguments = CommandLine.arguments
guard arguments.count == 4, let first = Int(arguments[2]), let count = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: store-crash-helper <store path> <first write> <writes>\n".utf8))
    exit(64)
}
do {
    let store = try Store(.file(URL(fileURLWithPath: arguments[1])), schema: ChatModelsSchema.self)
    for number in first..<(first + count) {
        try store.write { context in
            try User(id: "writer", name: "Writer").save(to: &context)
            try Chat(id: "counter", title: "\(number)").save(to: &context)
            try Message(id: "m\(number)", text: "write \(number)", timestamp: number, author: .id("writer"), chat: .id("counter")).save(to: &context)
        }
        // Unbuffered: the number is out before the next write starts.
        FileHandle.standardOutput.write(Data("\(number)\n".utf8))
    }
} catch {
    FileHandle.standardError.write(Data("store-crash-helper: \(error)\n".utf8))
    exit(1)
}
