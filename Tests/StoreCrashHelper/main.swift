import ChatModels
import ChatWorkloads
import DeterministicRandom
import Foundation
@_spi(SchemaStoreTesting) import SchemaStore
import SchemaStorePostgres

// store-crash-helper <store path> <first write> <writes>
// store-crash-helper postgres <socket folder> <database> <first write> <writes> [on-demand|resident] [before-flush]
//
// Commits numbered writes to a chat store, printing each number once its commit returned
// (with `before-flush`, commits visible before their flush: `Store.CommitVisibility.beforeFlush`).
// Write n saves message "m<n>" and sets chat "counter"'s title to "<n>", in one transaction:
// after a kill, the store must hold messages m0..<k and title k - 1 for some k, never a part
// of a write. The crash-safety tests kill this process at random moments.
//
// store-crash-helper increment <socket folder> <database> <writer> <writes> <expected total> [on-demand]
//
// Each write adds 1 to user "counter"'s age, read from the store, and saves message
// "<writer>-<n>". Then waits (up to 30 s) until its store shows the age `expected total`,
// committed by every writer together, and prints "saw <total>": the multi-process test runs
// several at once on one database.
//
// store-crash-helper random <socket folder> <database> <writer> <writes> <seed>
//
// Runs `writes` random writes (`RandomChatWrite`, drawn from seed + writer), each marked with
// its commit number (`CommitMarker`), once it read "go" (after printing "ready"), printing "ok <number> <write>" for each commit and
// "failed <last number seen> <write> <error>" for each write that threw. Then prints "done",
// waits (up to 60 s) until its change stream reports chat "end" (which the test saves once
// every writer is done), and prints "observed <marker ids>", every marker its observers saw.
//
// store-crash-helper random-logged <socket folder> <database> <writer> <writes> <seed> <residency>
//
// The same with writes that read before the write lock (on demand each, resident each that
// found another store's commit first): each write saves marker attachment "w<writer>-<write>"
// without reading anything for it (so that markers make writes collide no more than the
// writes do), and prints "wrote <write>" or "failed -1 <write> <error>"; the test finds each
// marker's commit number in the log. Before "done", prints "unlocked <runs> <changed>": how
// many runs read before the lock, and how many of them found what they read changed.
let arguments = CommandLine.arguments

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("store-crash-helper: \(message)\n".utf8))
    exit(code)
}

/// The residency an optional last argument names (`on-demand`, `resident`); nil (the
/// store's default) without one.
func residency(_ argument: String?) -> Store.Residency? {
    switch argument {
    case "on-demand": .onDemand
    case "resident": .resident
    default: nil
    }
}

func postgres(_ socket: String, _ database: String) -> Store.Location {
    .postgres(PostgresConnection.Configuration(host: socket, database: database, user: "schemagen"))
}

func numberedWrites(_ location: Store.Location, first: Int, count: Int, residency: Store.Residency?,
                    commitVisibility: Store.CommitVisibility = .afterFlush) throws {
    let store = try Store(location, schema: ChatModelsSchema.self, options: Store.Options(residency: residency, commitVisibility: commitVisibility))
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

func increments(_ location: Store.Location, writer: String, count: Int, expected: Int, residency: Store.Residency?) throws {
    let store = try Store(location, schema: ChatModelsSchema.self, options: Store.Options(residency: residency))
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

/// The markers a store's change stream reported, until it reported chat "end".
final class ObservedMarkers: @unchecked Sendable {
    private let lock = NSLock()
    private var ids: Set<String> = []
    private let ended = DispatchSemaphore(value: 0)

    func add(_ changes: StoreChanges) {
        lock.withLock { ids.formUnion(changes.changes(Attachment.self)?.inserted ?? []) }
        if changes.changes(Chat.self)?.inserted.contains("end") == true { ended.signal() }
    }

    /// The markers seen, once the end was seen (nil if not within `timeout` seconds).
    func waitForEnd(timeout: TimeInterval) -> Set<String>? {
        guard ended.wait(timeout: .now() + timeout) == .success else { return nil }
        return lock.withLock { ids }
    }
}

func randomWrites(_ location: Store.Location, writer: Int, count: Int, seed: UInt64, residency: Store.Residency, logged: Bool,
                  commitVisibility: Store.CommitVisibility = .afterFlush) throws {
    let store = try Store(location, schema: ChatModelsSchema.self, options: Store.Options(residency: residency, commitVisibility: commitVisibility))
    let observed = ObservedMarkers()
    let changes = store.changes()
    Task.detached {
        for await change in changes { observed.add(change) }
    }
    // Every writer's store open before any writes: commits made before a store opened are
    // in its first graph, not in its change stream.
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    guard readLine() == "go" else { fail("expected go", code: 64) }
    var random = SplitMix64(seed: seed &+ UInt64(writer))
    for index in 0..<count {
        let write = RandomChatWrite.next(&random)
        var seen = -1
        do {
            if logged {
                try store.write { context in
                    try write.apply(&context)
                    try Attachment(id: "w\(writer)-\(index)", kind: .file).save(to: &context)
                }
                FileHandle.standardOutput.write(Data("wrote \(index)\n".utf8))
                continue
            }
            try store.write { context in
                seen = CommitMarker.last(in: context)
                try write.apply(&context)
                try CommitMarker.save(seen + 1, writer: writer, index: index, to: &context)
            }
            FileHandle.standardOutput.write(Data("ok \(seen + 1) \(index)\n".utf8))
        } catch {
            FileHandle.standardOutput.write(Data("failed \(seen) \(index) \(error)\n".utf8))
        }
    }
    if logged {
        let statistics = store.onDemandStatistics, stale = store.staleWritesReadUnlocked
        let (runs, changed) = store.readsOnDemand ? (statistics.writesReadingUnlocked, statistics.writesReadingUnlockedRetried) : stale
        FileHandle.standardOutput.write(Data("unlocked \(runs) \(changed)\n".utf8))
    }
    FileHandle.standardOutput.write(Data("done\n".utf8))
    guard let ids = observed.waitForEnd(timeout: 60) else { fail("never observed the end", code: 2) }
    FileHandle.standardOutput.write(Data("observed \(ids.sorted().joined(separator: ","))\n".utf8))
}

do {
    switch arguments.dropFirst().first {
    case "postgres" where (6...8).contains(arguments.count):
        guard let first = Int(arguments[4]), let count = Int(arguments[5]) else { fail("bad numbers", code: 64) }
        try numberedWrites(postgres(arguments[2], arguments[3]), first: first, count: count, residency: residency(arguments.dropFirst(6).first),
                           commitVisibility: arguments.dropFirst(7).first == "before-flush" ? .beforeFlush : .afterFlush)
    case "increment" where arguments.count == 7 || arguments.count == 8:
        guard let count = Int(arguments[5]), let expected = Int(arguments[6]) else { fail("bad numbers", code: 64) }
        try increments(postgres(arguments[2], arguments[3]), writer: arguments[4], count: count, expected: expected,
                       residency: residency(arguments.dropFirst(7).first))
    case "random" where arguments.count == 7 || arguments.count == 8:
        guard let writer = Int(arguments[4]), let count = Int(arguments[5]), let seed = UInt64(arguments[6]) else { fail("bad numbers", code: 64) }
        try randomWrites(postgres(arguments[2], arguments[3]), writer: writer, count: count, seed: seed, residency: .resident, logged: false,
                         commitVisibility: arguments.dropFirst(7).first == "before-flush" ? .beforeFlush : .afterFlush)
    case "random-logged" where arguments.count == 8:
        guard let writer = Int(arguments[4]), let count = Int(arguments[5]), let seed = UInt64(arguments[6]),
              let residency = residency(arguments[7]) else { fail("bad arguments", code: 64) }
        try randomWrites(postgres(arguments[2], arguments[3]), writer: writer, count: count, seed: seed, residency: residency, logged: true)
    default:
        guard arguments.count == 4, let first = Int(arguments[2]), let count = Int(arguments[3]) else {
            fail("usage: store-crash-helper <store path> <first write> <writes>", code: 64)
        }
        try numberedWrites(.file(URL(fileURLWithPath: arguments[1])), first: first, count: count, residency: nil)
    }
} catch {
    fail("\(error)", code: 1)
}
