import ChatModels
import Foundation
import SchemaStore
import SchemaStorePostgres

// store-crash-helper <store path> <first write> <writes>
// store-crash-helper postgres <socket folder> <database> <first write> <writes>
//
// Commits numbered writes to a chat store, printing each number once its commit returned.
// Write n saves message "m<n>" and sets chat "counter"'s title to "<n>", in one transaction:
// after a kill, the store must hold messages m0..<k and title k - 1 for some k, never a part
// of a write. The crash-safety tests kill this process at random moments.
//
// store-crash-helper increment <socket folder> <database> <writer> <writes> <expected total>
//
// Each write adds 1 to user "counter"'s age, read from the store, and saves message
// "<writer>-<n>". Then waits (up to 30 s) until its store shows the age `expected total`,
// committed by every writer together, and prints "saw <total>": the multi-process test runs
// several at once on one database.
let arguments = CommandLine.arguments

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("store-crash-helper: \(message)\n".utf8))
    exit(code)
}

func postgres(_ socket: String, _ database: String) -> Store.Location {
    .postgres(PostgresConnection.Configuration(host: socket, database: database, user: "schemagen"))
}

func numberedWrites(_ location: Store.Location, first: Int, count: Int) throws {
    let store = try Store(location, schema: ChatModelsSchema.self)
    for number in first..<(first + count) {
        try store.write { context in
            try User(id: "writer", name: "Writer").save(to: &context)
            try Chat(id: "counter", title: "\(number)").save(to: &context)
            try Message(id: "m\(number)", text: "write \(number)", timestamp: number, author: .id("writer"), chat: .id("counter")).save(to: &context)
        }
        // Unbuffered: the number is out before the next write starts.
        FileHandle.standardOutput.write(Data("\(number)\n".utf8))
    }
}

func increments(_ location: Store.Location, writer: String, count: Int, expected: Int) throws {
    let store = try Store(location, schema: ChatModelsSchema.self)
    for number in 0..<count {
        try store.write { context in
            var counter = context.find(User.self, id: "counter") ?? User(id: "counter", name: "Counter")
            counter.age += 1
            try counter.save(to: &context)
            try Message(id: "\(writer)-\(number)", text: "from \(writer)", timestamp: number, author: .id("counter"), chat: .id(writer))
                .save(to: &context)
        }
    }
    let deadline = Date().addingTimeInterval(30)
    while Date() < deadline {
        // Other processes' commits arrive through the store's own polling, not a refresh.
        if let total = store.context.find(User.self, id: "counter")?.age, total >= expected {
            FileHandle.standardOutput.write(Data("saw \(total)\n".utf8))
            return
        }
        usleep(10_000)
    }
    fail("never saw \(expected): \(store.context.find(User.self, id: "counter")?.age ?? 0)", code: 2)
}

do {
    switch arguments.dropFirst().first {
    case "postgres" where arguments.count == 6:
        guard let first = Int(arguments[4]), let count = Int(arguments[5]) else { fail("bad numbers", code: 64) }
        try numberedWrites(postgres(arguments[2], arguments[3]), first: first, count: count)
    case "increment" where arguments.count == 7:
        guard let count = Int(arguments[5]), let expected = Int(arguments[6]) else { fail("bad numbers", code: 64) }
        try increments(postgres(arguments[2], arguments[3]), writer: arguments[4], count: count, expected: expected)
    default:
        guard arguments.count == 4, let first = Int(arguments[2]), let count = Int(arguments[3]) else {
            fail("usage: store-crash-helper <store path> <first write> <writes>", code: 64)
        }
        try numberedWrites(.file(URL(fileURLWithPath: arguments[1])), first: first, count: count)
    }
} catch {
    fail("\(error)", code: 1)
}
