import BenchModels
import DeterministicRandom
import Foundation
import SchemaRuntime
import SchemaStore
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// `schemastore-bench ondemand [messages...]`: open + first screen and the read steps of
/// issue #28, on stores of each size (100 messages per chat), in a fresh process per
/// measurement so that time and peak memory are the step's alone. Modes alternate (on
/// demand, resident, hand-written SQL on the same file) for `rounds` rounds; medians.
enum OnDemandBenchmark {
    static let modes = ["onDemand", "resident", "plainSQL"]

    static func run(sizes: [Int], rounds: Int, folder: URL) throws {
        print("on-demand benchmark: sizes \(sizes) messages, 100 per chat, \(rounds) rounds, load \(loadAverage())")
        for size in sizes {
            let url = folder.appendingPathComponent("ondemand-\(size).sqlite")
            let build = try milliseconds { try fill(url, messages: size) }
            if size <= 100_000 { try buildFTS5(beside: url) }
            print(String(format: "\n%d messages (file built in %.1f s, %.0f MB)", size, build / 1000, fileMegabytes(url)))
            var results: [String: [String: [Double]]] = [:]
            for _ in 0..<rounds {
                for mode in modes {
                    for (step, value) in try measure(url, mode: mode) { results[mode, default: [:]][step, default: []].append(value) }
                }
            }
            for step in ["open", "first screen", "open + first screen", "peak RSS MB", "range of 1000", "range of 1000 again", "count 10%", "count 10% again", "100 chats nested",
                         "100 chats nested again", "100 chats nested, new snapshot", "full text 2 words", "write 1 message", "delete 1 message", "write 1 into 20k chat"] {
                var line = step.padding(toLength: 22, withPad: " ", startingAt: 0)
                for mode in modes {
                    let values = results[mode]?[step] ?? []
                    line += values.isEmpty ? "  \(mode): -".padding(toLength: 26, withPad: " ", startingAt: 0)
                        : String(format: "  %@: %8.2f", mode, median(values)).padding(toLength: 26, withPad: " ", startingAt: 0)
                }
                print(line)
            }
            for suffix in ["", "-wal", "-shm", ".fts5"] { try? FileManager.default.removeItem(atPath: url.path + suffix) }
        }
    }

    /// Writes `messages` messages (100 per chat, chats of 10 users, one user per chat).
    static func fill(_ url: URL, messages: Int, indexed: Bool = true) throws {
        var random = SplitMix64(seed: 7)
        let chatCount = max(messages / 100, 1)
        let vocabulary = (0..<2000).map { "word\($0)" }
        // Opened on demand for writing: the file gets the SQL indexes on-demand readers use.
        let store = try Store(.file(url), schema: BenchModelsSchema.self, options: .init(residency: indexed ? .onDemand : .resident))
        defer { store.close() }
        try store.write { context in
            for id in 0..<chatCount { try User(id: id, name: "user\(id)", age: 18 + id % 60).save(to: &context) }
        }
        // Batches of 1,000 chats keep the writer's memory and each transaction bounded.
        for start in stride(from: 0, to: chatCount, by: 1000) {
            try store.write { context in
                for chatID in start..<min(start + 1000, chatCount) {
                    try Chat(id: chatID, title: "chat\(chatID)", users: .ids((0..<10).map { (chatID + $0 * 97) % chatCount }),
                             messages: .relation((0..<100).map { index in
                                 Message(id: chatID * 100 + index,
                                         text: (0..<8).map { _ in vocabulary.randomElement(using: &random)! }.joined(separator: " "),
                                         timestamp: Int.random(in: 0..<1_000_000_000, using: &random),
                                         author: .id(Int.random(in: 0..<chatCount, using: &random)))
                             })).save(to: &context)
                }
            }
        }
    }

    /// Runs the steps in a child process (this executable, `ondemand-child`); returns its figures.
    static func measure(_ url: URL, mode: String) throws -> [String: Double] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = ["ondemand-child", url.path, mode]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        var figures: [String: Double] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: "=")
            if parts.count == 2, let value = Double(parts[1]) { figures[String(parts[0])] = value }
        }
        return figures
    }

    /// The child: open, first screen, then the other reads; prints `step=value` lines.
    static func child(path: String, mode: String) throws {
        let url = URL(fileURLWithPath: path)
        var figures: [(String, Double)] = []
        let chatCount = try messageCount(path) / 100
        let chat = chatCount / 2
        if mode == "plainSQL" {
            var database: OpaquePointer?
            let open = milliseconds { sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) }
            let screen = milliseconds { precondition(plainFirstScreen(database, chat: chat) == 20) }
            figures += [("open", open), ("first screen", screen), ("open + first screen", open + screen), ("peak RSS MB", peakMegabytes())]
            figures.append(("range of 1000", milliseconds { _ = plainRange(database) }))
            for step in ["count 10%", "count 10% again"] { figures.append((step, milliseconds { _ = plainCount(database) })) }
            if FileManager.default.fileExists(atPath: path + ".fts5") {
                sqlite3_exec(database, "ATTACH '\(path).fts5' AS fts", nil, nil, nil)
                figures.append(("full text 2 words", milliseconds { _ = plainFullText(database) }))
            }
            sqlite3_close(database)
        } else {
            var store: Store!
            let open = try milliseconds {
                store = try Store(.file(url), schema: BenchModelsSchema.self,
                                  options: .init(readOnly: true, residency: mode == "onDemand" ? .onDemand : .resident))
            }
            // The reads in a scope of their own: their snapshot ends before the writes, so that
            // the last connection to close can checkpoint the log (a snapshot held to the end
            // of the process left a write-ahead log that each next open had to read).
            do {
                let context = store.context
                let screen = milliseconds {
                    let messages = Chat.query(chat, in: context).related(\.$messages).sorted(by: \.timestamp.desc).limit(20).with(\.$author).resolve()
                    precondition(messages.count == 20 && messages.allSatisfy { $0.author != nil })
                }
                figures += [("open", open), ("first screen", screen), ("open + first screen", open + screen), ("peak RSS MB", peakMegabytes())]
                // A timestamp range holding about 1,000 messages, and one holding 10%.
                let total = try messageCount(path)
                let width = 1_000_000_000 / total * 1000
                for step in ["range of 1000", "range of 1000 again"] {
                figures.append((step, milliseconds {
                    _ = Message.query(in: context).filter(\.timestamp >= 500_000_000 && \.timestamp < 500_000_000 + width).sorted(by: \.timestamp).resolve()
                }))
                }
                // Twice: the first reads the range's index pages into the page cache.
                for step in ["count 10%", "count 10% again"] {
                    figures.append((step, milliseconds {
                        _ = Message.query(in: context).filter(\.timestamp >= 100_000_000 && \.timestamp < 200_000_000).count()
                    }))
                }
                let ids = Array(stride(from: 0, to: chatCount, by: max(chatCount / 100, 1)).prefix(100))
                // Twice: the first run in a process also pays Swift's one-time generic
                // instantiation for the types it reads (see Performance.md, "cold queries").
                for step in ["100 chats nested", "100 chats nested again"] {
                    figures.append((step, milliseconds {
                        _ = Chat.query(ids, in: context).with(\.$messages) { $0.with(\.$author) }.resolve()
                    }))
                }
                // On a snapshot of its own (a `read`): nothing read before, on demand (the second
                // run above reuses what the first read on its snapshot).
                figures.append(("100 chats nested, new snapshot", try milliseconds {
                    _ = try store.read { Chat.query(ids, in: $0).with(\.$messages) { $0.with(\.$author) }.resolve() }
                }))
                if total <= 100_000 {
                    figures.append(("full text 2 words", milliseconds {
                        _ = Message.query(in: context).filter(.string(\.text, matches: "word17 word42")).limit(20).resolve()
                    }))
                }
            }
            store.close()
            figures += try writes(url, mode: mode, chat: chat)
        }
        for (name, value) in figures { print("\(name)=\(value)") }
    }

    /// Single-message writes by a store opened for writing: 15 times, a new message saved
    /// into a chat of 100 (with its author), then deleted again, so the file keeps its size.
    /// Medians of each; a resident store's open (the whole graph) is not counted.
    static func writes(_ url: URL, mode: String, chat: Int) throws -> [(String, Double)] {
        let store = try Store(.file(url), schema: BenchModelsSchema.self, options: .init(residency: mode == "onDemand" ? .onDemand : .resident))
        defer { store.close() }
        var saves: [Double] = [], deletes: [Double] = []
        let id = 2_000_000_000 + Int(ProcessInfo.processInfo.processIdentifier)
        for round in 0..<16 {
            let save = try milliseconds {
                try store.write { context in
                    try Message(id: id, text: "a new message \(round)", timestamp: round, chat: .id(chat), author: .id(1)).save(to: &context)
                }
            }
            let delete = try milliseconds { try store.write { context in try Message.delete(id: id, from: &context) } }
            // The first of each pays one-time costs (statements prepared, code paged in).
            if round > 0 {
                saves.append(save)
                deletes.append(delete)
            }
        }
        // The same into a chat of 20,000 messages, made for this and deleted after.
        let big = 1_999_999_999 - Int(ProcessInfo.processInfo.processIdentifier)
        try store.write { context in
            try Chat(id: big, title: "big", messages: .relation((0..<20_000).map {
                Message(id: big * 100_000 + $0, text: "m\($0)", timestamp: $0, author: .id(1))
            })).save(to: &context)
        }
        var bigSaves: [Double] = []
        for round in 0..<16 {
            let save = try milliseconds {
                try store.write { context in
                    try Message(id: id, text: "into the big chat \(round)", timestamp: round, chat: .id(big), author: .id(1)).save(to: &context)
                }
            }
            try store.write { context in try Message.delete(id: id, from: &context) }
            if round > 0 { bigSaves.append(save) }
        }
        try store.write { context in try Chat.delete(id: big, from: &context) }
        return [("write 1 message", median(saves)), ("delete 1 message", median(deletes)), ("write 1 into 20k chat", median(bigSaves))]
    }

    static func plainFirstScreen(_ database: OpaquePointer?, chat: Int) -> Int {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(database, """
            SELECT m."id", m."text", m."timestamp", u."id", u."name", u."age" FROM "Message" m \
            JOIN "Chat.messages" l ON l.target = m."id" JOIN "Message.author" a ON a.owner = m."id" JOIN "User" u ON u."id" = a.target \
            WHERE l.owner = ? ORDER BY m."timestamp" DESC LIMIT 20
            """, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, Int64(chat))
        var rows = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            _ = String(cString: sqlite3_column_text(statement, 1))
            rows += 1
        }
        return rows
    }

    static func plainRange(_ database: OpaquePointer?) -> Int {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(database, #"SELECT "id", "text", "timestamp" FROM "Message" WHERE "timestamp" >= ? AND "timestamp" < ? ORDER BY "timestamp""#, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        var count: OpaquePointer?
        sqlite3_prepare_v2(database, #"SELECT max(rowid) FROM "Message""#, -1, &count, nil)
        sqlite3_step(count)
        let total = Int(sqlite3_column_int64(count, 0))
        sqlite3_finalize(count)
        sqlite3_bind_int64(statement, 1, 500_000_000)
        sqlite3_bind_int64(statement, 2, Int64(500_000_000 + 1_000_000_000 / total * 1000))
        var rows = 0
        while sqlite3_step(statement) == SQLITE_ROW { rows += 1 }
        return rows
    }

    /// The hand-written floor of a ranked match: the messages' text in a contentless FTS5
    /// index in a file beside the store's (`<store>.fts5`), built once per size.
    static func buildFTS5(beside url: URL) throws {
        var database: OpaquePointer?
        sqlite3_open(url.path + ".fts5", &database)
        defer { sqlite3_close(database) }
        let sql = """
            CREATE VIRTUAL TABLE "MessageText" USING fts5(text, content=''); \
            ATTACH '\(url.path)' AS store; \
            INSERT INTO "MessageText" (rowid, text) SELECT "id", "text" FROM store."Message"
            """
        guard sqlite3_exec(database, sql, nil, nil, nil) == SQLITE_OK else { throw CocoaError(.fileWriteUnknown) }
    }

    /// The 20 messages matching two words best (BM25, FTS5's `rank`), with their rows.
    static func plainFullText(_ database: OpaquePointer?) -> Int {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(database, """
            SELECT m."id", m."text", m."timestamp" FROM fts."MessageText" f JOIN main."Message" m ON m."id" = f.rowid \
            WHERE f."MessageText" MATCH 'word17 word42' ORDER BY f.rank LIMIT 20
            """, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        var rows = 0
        while sqlite3_step(statement) == SQLITE_ROW {
            _ = String(cString: sqlite3_column_text(statement, 1))
            rows += 1
        }
        return rows
    }

    /// The messages of a 10% timestamp range, counted by hand.
    static func plainCount(_ database: OpaquePointer?) -> Int {
        var statement: OpaquePointer?
        sqlite3_prepare_v2(database, #"SELECT count(*) FROM "Message" WHERE "timestamp" >= ? AND "timestamp" < ?"#, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_int64(statement, 1, 100_000_000)
        sqlite3_bind_int64(statement, 2, 200_000_000)
        sqlite3_step(statement)
        return Int(sqlite3_column_int64(statement, 0))
    }

    static func messageCount(_ path: String) throws -> Int {
        var database: OpaquePointer?
        sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil)
        defer { sqlite3_close(database) }
        var statement: OpaquePointer?
        sqlite3_prepare_v2(database, #"SELECT max(rowid) FROM "Message""#, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        sqlite3_step(statement)
        return Int(sqlite3_column_int64(statement, 0))
    }

    /// The process's peak resident memory. On Linux `ru_maxrss` keeps the parent's peak across
    /// fork and exec, so the kernel's own high-water mark of this process is read instead.
    static func peakMegabytes() -> Double {
        #if canImport(Darwin)
        var usage = rusage()
        getrusage(RUSAGE_SELF, &usage)
        return Double(usage.ru_maxrss) / 1_048_576
        #else
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Double(line.split(separator: " ").dropFirst().first ?? "0").map { $0 / 1024 } ?? 0
        #endif
    }

    /// The CPU time this process has used so far, user and system, in milliseconds: what a
    /// loop's own work costs, apart from the time it waits (for a server, say), and steadier
    /// than its wall time on a shared machine.
    static func processCPUMilliseconds() -> Double {
        var usage = rusage()
        #if canImport(Darwin)
        getrusage(RUSAGE_SELF, &usage)
        #else
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #endif
        func milliseconds(_ time: timeval) -> Double { Double(time.tv_sec) * 1000 + Double(time.tv_usec) / 1000 }
        return milliseconds(usage.ru_utime) + milliseconds(usage.ru_stime)
    }

    static func fileMegabytes(_ url: URL) -> Double {
        Double((try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0) / 1e6
    }

    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "unknown"
    }

    static func milliseconds(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        return milliseconds(of: ContinuousClock.now - start)
    }

    static func milliseconds(of duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    static func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
}
