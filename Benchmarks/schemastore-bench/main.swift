import BenchModels
import DeterministicRandom
import Foundation
import SchemaRuntime
import SchemaStore

// The store benchmark of docs/Persistence.md, on types generated from Bench.schema.
//
//   swift run -c release schemastore-bench [users] [messagesPerChat] [rounds]
//
// The workload of schemagen-bench: U users, U chats of 10 users and P messages (8 words from
// 2,000, a timestamp, an author). Steps on a store file in a temporary folder (WAL,
// synchronous = NORMAL). The first commit and its plain-SQLite floor run `rounds` times,
// alternated; medians are printed. A last argument `first-commit` stops after the first commits.

// `schemastore-bench async-writes [rounds] [postgres]`: sync against async single writes
// (AsyncWriteBenchmark.swift), run in a task; this top-level code stays synchronous.
if CommandLine.arguments.dropFirst().first == "async-writes" {
    let rounds = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }.first ?? 20
    let postgres = CommandLine.arguments.contains("postgres")
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        do {
            try await AsyncWriteBenchmark.run(rounds: rounds, postgres: postgres)
        } catch {
            print("async-writes failed: \(error)")
        }
        done.signal()
    }
    done.wait()
    exit(0)
}

// `schemastore-bench packs ...`: the cross-pack benchmark instead (PacksBenchmark.swift).
if CommandLine.arguments.dropFirst().first == "packs" {
    let numbers = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("schemastore-packs-bench-\(ProcessInfo.processInfo.processIdentifier)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let result = Result {
        try PacksBenchmark(packCount: numbers.first ?? 20, perPack: numbers.dropFirst().first ?? 10_000,
                           rounds: numbers.dropFirst(2).first ?? 3, folder: folder).run()
    }
    // `exit` skips `defer`: clean up first.
    try? FileManager.default.removeItem(at: folder)
    try result.get()
    exit(0)
}

// `schemastore-bench follow-append [messages...]`: a follower catching up with one message
// sent to a long chat (FollowBenchmark.swift).
if CommandLine.arguments.dropFirst().first == "follow-append" {
    let sizes = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
    try FollowBenchmark.run(sizes: sizes.isEmpty ? [10_000, 100_000, 1_000_000] : sizes)
    exit(0)
}

// `schemastore-bench write-growth [messages...]`: how one small write's cost grows with the
// graph (WriteGrowthBenchmark.swift).
if CommandLine.arguments.dropFirst().first == "write-growth" {
    let sizes = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
    try WriteGrowthBenchmark.run(sizes: sizes.isEmpty ? [10_000, 100_000, 1_000_000] : sizes)
    exit(0)
}

// `schemastore-bench ondemand [messages...]`: open + first screen and reads, on demand beside
// resident and hand-written SQL (OnDemandBenchmark.swift); `ondemand-child` is its child process.
if CommandLine.arguments.dropFirst().first == "ondemand-child" {
    try OnDemandBenchmark.child(path: CommandLine.arguments[2], mode: CommandLine.arguments[3])
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "ondemand-nested" {
    // `ondemand-nested <path> [cold]`: the nested query of 100 chats with messages and
    // authors, 30 times on demand (cold: each on a snapshot of its own that keeps no rows, so
    // reads everything); prints the median (ms). For profiling and quick A/B of builds.
    let cold = CommandLine.arguments.dropFirst(3).first == "cold"
    let store = try Store(.file(URL(fileURLWithPath: CommandLine.arguments[2])), schema: BenchModelsSchema.self,
                          options: .init(readOnly: true, residency: .onDemand, cachedRowsPerSnapshot: cold ? 0 : 50_000))
    let ids = Array(stride(from: 0, to: 1000, by: 10).prefix(100))
    var times: [Double] = []
    for _ in 0..<30 {
        if cold {
            times.append(try OnDemandBenchmark.milliseconds { _ = try store.read { Chat.query(ids, in: $0).with(\.$messages) { $0.with(\.$author) }.resolve() } })
            continue
        }
        let context = store.context
        times.append(OnDemandBenchmark.milliseconds { _ = Chat.query(ids, in: context).with(\.$messages) { $0.with(\.$author) }.resolve() })
    }
    print(times.sorted()[15])
    exit(0)
}
// `schemastore-bench related-lists <path> <messages> [rounds]`: a chat's newest 20 on demand
// from SQLite, for chats at different depths of the index (RelatedListBenchmark.swift).
if CommandLine.arguments.dropFirst().first == "related-lists" {
    try RelatedListBenchmark.run(path: CommandLine.arguments[2], messages: Int(CommandLine.arguments[3]) ?? 100_000,
                                 rounds: CommandLine.arguments.dropFirst(4).first.flatMap { Int($0) } ?? 31, only: CommandLine.arguments.dropFirst(5).first)
    exit(0)
}
// `schemastore-bench filtered-lists <path> <users> [rounds]`: the 20 youngest or oldest users
// of one status on demand from SQLite, for statuses many and few hold (FilteredListBenchmark.swift).
if CommandLine.arguments.dropFirst().first == "filtered-lists" {
    try FilteredListBenchmark.run(path: CommandLine.arguments[2], users: Int(CommandLine.arguments[3]) ?? 100_000,
                                  rounds: CommandLine.arguments.dropFirst(4).first.flatMap { Int($0) } ?? 31)
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "ondemand-fill" {
    // A store file to profile a child with: `ondemand-fill <path> <messages> [resident]`
    // (resident: without the SQL indexes an on-demand writer creates). Prints the time taken.
    let seconds = try OnDemandBenchmark.milliseconds {
        try OnDemandBenchmark.fill(URL(fileURLWithPath: CommandLine.arguments[2]), messages: Int(CommandLine.arguments[3]) ?? 100_000,
                                   indexed: CommandLine.arguments.dropFirst(4).first != "resident")
    } / 1000
    print("filled in \(seconds) s")
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "postgres-load" {
    let counts = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
    try PostgresLoadBenchmark.run(processCounts: counts.isEmpty ? [1, 2, 4] : counts,
                                  residency: CommandLine.arguments.contains("on-demand") ? .onDemand : .resident,
                                  updates: CommandLine.arguments.contains("updates") || CommandLine.arguments.contains("hot"),
                                  hot: CommandLine.arguments.contains("hot"), writesOnly: CommandLine.arguments.contains("writes-only"), overTCP: CommandLine.arguments.contains("tcp"),
                                  delay: CommandLine.arguments.first { $0.hasPrefix("delay=") }.flatMap { Double($0.dropFirst("delay=".count)) }.map { $0 / 1000 },
                                  databases: CommandLine.arguments.first { $0.hasPrefix("databases=") }.flatMap { Int($0.dropFirst("databases=".count)) } ?? 1,
                                  commitVisibility: CommandLine.arguments.contains("before-flush") ? .beforeFlush : .afterFlush,
                                  followers: CommandLine.arguments.first { $0.hasPrefix("followers=") }.flatMap { Int($0.dropFirst("followers=".count)) } ?? 0,
                                  pace: (CommandLine.arguments.first { $0.hasPrefix("pace=") }.flatMap { Double($0.dropFirst("pace=".count)) } ?? 0) / 1000)
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "postgres-follow-child" {
    let arguments = CommandLine.arguments
    try PostgresLoadBenchmark.follower(host: arguments[2], port: Int(arguments[4]) ?? 5432, database: arguments[3],
                                       residency: arguments.dropFirst(5).first == "on-demand" ? .onDemand : .resident)
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "postgres-load-child" {
    let arguments = CommandLine.arguments
    try PostgresLoadBenchmark.child(host: arguments[2], port: Int(arguments[7]) ?? 5432, database: arguments[3], index: Int(arguments[4]) ?? 0,
                                    residency: arguments[5] == "on-demand" ? .onDemand : .resident,
                                    updates: arguments[6] != "inserts", hot: arguments[6] == "hot", writesOnly: arguments[8] == "writes-only",
                                    commitVisibility: arguments[9] == "before-flush" ? .beforeFlush : .afterFlush, timed: arguments[10] == "timed",
                                    pace: Double(arguments[11]) ?? 0)
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "postgres-profile" {
    let numbers = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
    try PostgresProfile.run(messages: numbers.first ?? 100_000, writes: numbers.dropFirst().first ?? 2000)
    exit(0)
}
// `schemastore-bench postgres-single [messages] [rounds] [tcp] [before-flush]`: single writes beside the
// observed hand-written floor, alternated round by round (PostgresSingleWriteBenchmark.swift).
if CommandLine.arguments.dropFirst().first == "postgres-single" {
    let numbers = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
    try PostgresSingleWriteBenchmark.run(messages: numbers.first ?? 10_000, rounds: numbers.dropFirst().first ?? 20,
                                         overTCP: CommandLine.arguments.contains("tcp"),
                                         commitVisibility: CommandLine.arguments.contains("before-flush") ? .beforeFlush : .afterFlush)
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "postgres" {
    let sizes = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
    try PostgresBenchmark.run(sizes: sizes.isEmpty ? [10_000, 100_000] : sizes, rounds: 3)
    exit(0)
}
if CommandLine.arguments.dropFirst().first == "ondemand" {
    let sizes = CommandLine.arguments.dropFirst(2).compactMap { Int($0) }
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("schemastore-ondemand-bench-\(ProcessInfo.processInfo.processIdentifier)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let result = Result { try OnDemandBenchmark.run(sizes: sizes.isEmpty ? [10_000, 100_000, 1_000_000] : sizes, rounds: 3, folder: folder) }
    try? FileManager.default.removeItem(at: folder)
    try result.get()
    exit(0)
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let userCount = arguments.first ?? 1000
let messagesPerChat = arguments.dropFirst().first ?? 100
let rounds = arguments.dropFirst(2).first ?? 3
let messageCount = userCount * messagesPerChat

var random = SplitMix64(seed: 42)
let vocabulary = (0..<2000).map { "word\($0)" }
let users = (0..<userCount).map { User(id: $0, name: "user\($0)", age: Int.random(in: 18...80, using: &random)) }
let chats = (0..<userCount).map { chatID in
    Chat(id: chatID, title: "chat\(chatID)", users: .ids((0..<10).map { (chatID + $0 * 97) % userCount }),
         messages: .relation((0..<messagesPerChat).map { index in
             Message(id: chatID * messagesPerChat + index,
                     text: (0..<8).map { _ in vocabulary.randomElement(using: &random)! }.joined(separator: " "),
                     timestamp: Int.random(in: 0..<1_000_000_000, using: &random),
                     author: .id(Int.random(in: 0..<userCount, using: &random)))
         }))
}

let folder = FileManager.default.temporaryDirectory.appendingPathComponent("schemastore-bench-\(ProcessInfo.processInfo.processIdentifier)")
try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: folder) }
let storeURL = folder.appendingPathComponent("store.sqlite")
let baselineURL = folder.appendingPathComponent("baseline.sqlite")

func removeDatabase(_ url: URL) {
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
}

func milliseconds(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    return OnDemandBenchmark.milliseconds(of: ContinuousClock.now - start)
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

func report(_ name: String, _ values: [Double], count: Int? = nil) {
    let perItem = count.map { String(format: " (%.1f µs each)", median(values) * 1000 / Double(max($0, 1))) } ?? ""
    let spread = values.count > 1 ? String(format: "  [min %.1f, max %.1f]", values.min()!, values.max()!) : ""
    print(name.padding(toLength: 60, withPad: " ", startingAt: 0) + String(format: "%10.2f ms", median(values)) + perItem + spread)
}

print("schemastore-bench: users=\(userCount) chats=\(userCount) messagesPerChat=\(messagesPerChat) messages=\(messageCount) rounds=\(rounds)")

// 1. The first commit of the whole graph, beside the same rows inserted by hand.
var inMemory: [Double] = [], firstCommit: [Double] = [], commitOnly: [Double] = [], baseline: [Double] = []
var onDemandCommit: [Double] = [], indexedBaseline: [Double] = []
for _ in 0..<rounds {
    // On demand (the default for file stores): the write reads what it touches, and the
    // file gets the SQL indexes and full-text postings on-demand readers use.
    removeDatabase(storeURL)
    onDemandCommit.append(try milliseconds {
        let store = try Store(.file(storeURL), schema: BenchModelsSchema.self, options: .init(residency: .onDemand))
        try store.write { context in
            try users.save(to: &context)
            try chats.save(to: &context)
        }
        store.close()
    })
    removeDatabase(baselineURL)
    indexedBaseline.append(milliseconds { PlainSQLiteBaseline.insertAll(users: users, chats: chats, at: baselineURL.path, indexed: true) })
    removeDatabase(baselineURL)
    baseline.append(milliseconds { PlainSQLiteBaseline.insertAll(users: users, chats: chats, at: baselineURL.path) })
    inMemory.append(try milliseconds {
        var context = Context()
        try users.save(to: &context)
        try chats.save(to: &context)
    })
    removeDatabase(storeURL)
    var saving = 0.0
    firstCommit.append(try milliseconds {
        let store = try Store(.file(storeURL), schema: BenchModelsSchema.self, options: .init(residency: .resident))
        try store.write { context in
            saving = try milliseconds {
                try users.save(to: &context)
                try chats.save(to: &context)
            }
        }
        store.close()
    })
    commitOnly.append(firstCommit.last! - saving)
}
report("save the graph in memory only (no store)", inMemory, count: messageCount)
report("first commit: save the graph + commit to a new file", firstCommit, count: messageCount)
report("  of which the commit (SQL and its preparation)", commitOnly, count: messageCount)
report("  floor: plain SQLite, the same rows, one transaction", baseline, count: messageCount)
report("first commit on demand (SQL indexes and full-text postings)", onDemandCommit, count: messageCount)
report("  floor: plain SQLite + the 2 indexes + FTS5 on the text", indexedBaseline, count: messageCount)
let fileSize = (try? FileManager.default.attributesOfItem(atPath: storeURL.path)[.size] as? Int) ?? 0
print(String(format: "  store file: %.1f MB (after close)", Double(fileSize) / 1e6))
// `schemastore-bench U P rounds first-commit`: stop here (to compare builds quickly).
if CommandLine.arguments.contains("first-commit") { exit(0) }

// 2. Reopen: load every row and link, rebuild the indexes.
var reopen: [Double] = []
var store: Store!
for round in 0..<rounds {
    if round > 0 { store.close() }
    reopen.append(try milliseconds { store = try Store(.file(storeURL), schema: BenchModelsSchema.self, options: .init(residency: .resident)) })
}
report("reopen: load the graph and rebuild indexes", reopen, count: messageCount)
precondition(store.context.count(of: Message.self) == messageCount)

// 3. Single-message writes, each its own transaction and commit, to chats step 5 keeps.
let deletedChats = min(100, userCount / 2)
var singles: [Double] = []
for index in 0..<1000 {
    let id = messageCount + index
    singles.append(try milliseconds {
        try store.write { context in
            try Message(id: id, text: "one more", timestamp: id, chat: .id(deletedChats + index % (userCount - deletedChats)), author: .id(index % userCount)).save(to: &context)
        }
    })
}
report("1 message in its own write (median of 1000)", [median(singles)])
report("1000 single-message writes in a loop (total)", [singles.reduce(0, +)], count: 1000)
print(String(format: "  single writes: p90 %.3f ms, max %.3f ms", singles.sorted()[900], singles.max()!))

// 4. One field of 10,000 messages in one write.
let updated = min(10_000, messageCount)
report("update one field of \(updated) messages in one write", [try milliseconds {
    try store.write { context in
        for id in 0..<updated {
            guard var message = context.find(Message.self, id: id) else { continue }
            message.timestamp += 1
            try message.save(to: &context)
        }
    }
}], count: updated)

// 5. Delete 100 chats; the cascade deletes their messages.
report("delete \(deletedChats) chats with cascade (\(deletedChats * messagesPerChat) messages) and commit", [try milliseconds {
    try store.write { context in
        for chat in chats.prefix(deletedChats) { try chat.delete(from: &context) }
    }
}])
precondition(store.context.count(of: Message.self) == messageCount + 1000 - deletedChats * messagesPerChat)

// 6. One chat holding every message (a channel): a write that appends to a list that long
//    must not copy it.
let allMessages = store.context.ids(of: Message.self)
report("move all \(allMessages.count) messages into one chat, one write", [try milliseconds {
    try store.write { try Chat(id: -1, title: "channel", messages: .ids(allMessages)).save(to: &$0) }
}])
var channelWrites: [Double] = []
for index in 0..<200 {
    let id = messageCount + 10_000 + index
    channelWrites.append(try milliseconds {
        try store.write { try Message(id: id, text: "to the channel", timestamp: id, chat: .id(-1), author: .id(0)).save(to: &$0) }
    })
}
report("1 message into the \(allMessages.count)-message chat, own write (median of 200)", [median(channelWrites)])
store.close()

// 7. The same single-message write with full durability (an fsync per commit).
let durable = try Store(.file(storeURL), schema: BenchModelsSchema.self, options: .init(durability: .full, residency: .resident))
var durableWrites: [Double] = []
for index in 0..<100 {
    let id = messageCount + 1000 + index
    durableWrites.append(try milliseconds {
        try durable.write { try Message(id: id, text: "durable", timestamp: id, chat: .id(userCount - 1), author: .id(0)).save(to: &$0) }
    })
}
report("1 message in its own write, durability .full (median of 100)", [median(durableWrites)])
durable.close()

// 8. Observation: 100 live queries over the messages of 100 chats (the newest 20 of each),
//    then the same plus a stream of every commit, while single-message writes go to one of
//    those chats. Blocks of 200 writes alternate without observers, with the live queries,
//    and with both; consumers run in tasks of their own. Medians per write.
let observed = try Store(.file(storeURL), schema: BenchModelsSchema.self, options: .init(residency: .resident))
let watchedChats = Array((userCount - 100)..<userCount)
let writtenChat = watchedChats[0]
var nextMessage = messageCount + 100_000

/// CPU time of the calling thread, in milliseconds: what a write costs the writer, without
/// the consumers' work on the other core.
func threadMilliseconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1000 + Double(time.tv_nsec) / 1e6
}

struct WriteTimes {
    var wall: [Double] = []
    var cpu: [Double] = []
}

@MainActor func singleWrites(_ count: Int, into times: inout WriteTimes) throws {
    for _ in 0..<count {
        nextMessage += 1
        let id = nextMessage
        let start = threadMilliseconds()
        times.wall.append(try milliseconds {
            try observed.write { try Message(id: id, text: "observed", timestamp: id, chat: .id(writtenChat), author: .id(0)).save(to: &$0) }
        })
        times.cpu.append(threadMilliseconds() - start)
    }
}

var unobserved = WriteTimes(), liveOnly = WriteTimes(), liveAndStream = WriteTimes()
var writtenReruns = 0, otherReruns = 0, commitsSeen = 0, liveWrites = 0
for _ in 0..<Swift.max(rounds, 3) {
    try singleWrites(200, into: &unobserved)
    for withStream in [false, true] {
        let live = watchedChats.map { observed.observe(Chat.query($0).related(\.$messages).sorted(by: \.timestamp.desc).limit(20)) }
        let consumers = live.map { results in Task.detached { for await _ in results {} } }
        let commitCounter: Task<Int, Never>? = withStream ? {
            let commits = observed.changes()
            return Task.detached { var count = 0; for await _ in commits { count += 1 }; return count }
        }() : nil
        // Every live query has its first result before the writes start.
        while live.contains(where: { $0.evaluationCount == 0 }) { try await Task.sleep(nanoseconds: 1_000_000) }
        let before = live.map(\.evaluationCount)
        if withStream { try singleWrites(200, into: &liveAndStream) } else { try singleWrites(200, into: &liveOnly) }
        // Let the consumers catch up with the last commit before counting.
        var settled: [Int] = []
        while settled != live.map(\.evaluationCount) {
            settled = live.map(\.evaluationCount)
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        writtenReruns += settled[0] - before[0]
        otherReruns += zip(settled, before).dropFirst().reduce(0) { $0 + $1.0 - $1.1 }
        liveWrites += 200
        for consumer in consumers { consumer.cancel() }
        commitCounter?.cancel()
        commitsSeen += await commitCounter?.value ?? 0
    }
}
report("1 message in its own write, no observers (median)", [median(unobserved.wall)])
report("  with 100 live queries (median)", [median(liveOnly.wall)])
report("  with 100 live queries and a stream of every commit", [median(liveAndStream.wall)])
@MainActor func overhead(_ times: WriteTimes) -> String {
    String(format: "%+.0f%% time, %+.0f%% writer CPU", (median(times.wall) / median(unobserved.wall) - 1) * 100,
           (median(times.cpu) / median(unobserved.cpu) - 1) * 100)
}
print("  observers add: live queries \(overhead(liveOnly)); with the commit stream \(overhead(liveAndStream))")
print("  \(liveWrites) writes to one of the 100 chats re-ran its query \(writtenReruns) times (latest result wins), the other 99 queries \(otherReruns) times; \(commitsSeen) commits streamed")
observed.close()

// 9. Two stores on one file (an app and its widget): how long one store's commit takes to
//    reach the other's `context` (its check every Store.externalCommitCheckInterval, then a
//    reload of the whole graph), and what the writer's single writes cost while the other
//    store is open.
let writer = try Store(.file(storeURL), schema: BenchModelsSchema.self, options: .init(residency: .resident))
let follower = try Store(.file(storeURL), schema: BenchModelsSchema.self, options: .init(readOnly: true, residency: .resident))
var reachDelays: [Double] = [], sharedWrites: [Double] = []
for index in 0..<20 {
    let id = messageCount + 200_000 + index
    let start = ContinuousClock.now
    sharedWrites.append(try milliseconds {
        try writer.write { try Message(id: id, text: "shared", timestamp: id, chat: .id(userCount - 1), author: .id(0)).save(to: &$0) }
    })
    while follower.context.find(Message.self, id: id) == nil { usleep(200) }
    reachDelays.append(OnDemandBenchmark.milliseconds(of: ContinuousClock.now - start))
}
report("1 message in its own write, another store open on the file", [median(sharedWrites)])
report("  until the other store's context has it (median of 20)", reachDelays)
writer.close()
follower.close()

// 10. A migration that rewrites the messages table, in SQL or through a Swift closure,
//     beside opening the same data unchanged (MigrationBenchmark.swift).
let migrationTimes = try MigrationBenchmark.run(store: storeURL, folder: folder, rounds: rounds, milliseconds: milliseconds)
report("open unchanged (load the graph)", migrationTimes["unchanged"] ?? [], count: messageCount)
report("open + migrate, table rewritten in SQL", migrationTimes["in SQL"] ?? [], count: messageCount)
report("open + migrate, rows through a Migration closure", migrationTimes["through Swift"] ?? [], count: messageCount)
