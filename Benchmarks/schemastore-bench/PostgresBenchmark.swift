import BenchModels
import DeterministicRandom
import Foundation
import PostgresTestSupport
import SchemaRuntime
@_spi(SchemaStoreTesting) import SchemaStore
import SchemaStorePostgres

/// `schemastore-bench postgres [messages...]`: a store on PostgreSQL beside hand-written
/// libpq SQL doing the same work, and beside a SQLite file store, on a throwaway cluster
/// (Unix socket, `fsync=off` for both). Per size, three rounds with the modes alternated,
/// medians:
/// - first commit: users, then chats of 100 messages with their links, in one write;
///   by hand, the same rows as multi-row `INSERT`s of 1,000 rows, in one transaction, or
///   ("hand COPY") each table's rows in one `COPY`;
/// - open: a new store loading the graph;
/// - single write: a new message saved into a chat, median of ``singleWrites``; by hand also "observed",
///   with the steps that let other processes see the commit (`handWrittenSingleWrites`).
enum PostgresBenchmark {
    static func run(sizes: [Int], rounds: Int) throws {
        guard let cluster = try TemporaryPostgresCluster.start() else {
            print(TemporaryPostgresCluster.missingServer)
            return
        }
        defer { cluster.stop() }
        print("PostgreSQL store beside hand-written SQL and a SQLite file (ms, medians of \(rounds) alternated rounds)")
        for size in sizes {
            var figures: [String: [Double]] = [:]
            for round in 0..<rounds {
                let graph = Graph(messages: size)
                for mode in ["postgres", "hand SQL", "hand SQL, indexed", "hand SQL, indexed, full text", "hand COPY, indexed, full text", "sqlite"] {
                    for (step, value) in try measure(mode, graph: graph, cluster: cluster, name: "b\(size)_\(round)_\(mode.lowercased().filter(\.isLetter))") {
                        figures["\(mode): \(step)", default: []].append(value)
                    }
                }
            }
            print("\n\(size) messages")
            for key in figures.keys.sorted() {
                let values = figures[key]!.sorted()
                print("  \(key): \(String(format: "%.2f", values[values.count / 2]))")
            }
        }
    }

    /// The benchmark's data: users, and chats of 100 messages.
    struct Graph {
        let users: [User]
        let chats: [Chat]

        init(messages: Int) {
            var random = SplitMix64(seed: 7)
            let chatCount = max(messages / 100, 1)
            users = (0..<chatCount).map { User(id: $0, name: "user\($0)", age: 18 + $0 % 60) }
            chats = (0..<chatCount).map { chatID in
                Chat(id: chatID, title: "chat\(chatID)", users: .ids((0..<10).map { (chatID + $0 * 97) % chatCount }),
                     messages: .relation((0..<100).map { index in
                         Message(id: chatID * 100 + index, text: "message \(index) of chat \(chatID)",
                                 timestamp: Int.random(in: 0..<1_000_000_000, using: &random),
                                 author: .id(Int.random(in: 0..<chatCount, using: &random)))
                     }))
            }
        }
    }

    private static func measure(_ mode: String, graph: Graph, cluster: TemporaryPostgresCluster, name: String) throws -> [(String, Double)] {
        if mode.hasPrefix("hand") {
            let configuration = try cluster.createDatabase(name)
            let commit = try handWritten(graph, configuration, indexed: mode.contains("indexed"), fullText: mode.hasSuffix("full text"),
                                         copy: mode.hasPrefix("hand COPY"))
            let observed = mode.hasSuffix("full text") ? [("single write, observed", try handWrittenSingleWrites(configuration, observed: true))] : []
            return [("first commit", commit), ("single write", try handWrittenSingleWrites(configuration))] + observed
                + (try handWrittenFirstScreen(configuration))
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pg-bench-\(name)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let server = mode == "sqlite" ? nil : try cluster.createDatabase(name)
        let location: Store.Location = server.map { .postgres($0) } ?? .file(folder.appendingPathComponent("bench.store"))
        let options = Store.Options(residency: .resident)
        var store: Store? = try Store(location, schema: BenchModelsSchema.self, options: options)
        let commit = try OnDemandBenchmark.milliseconds {
            try store!.write { context in
                try graph.users.save(to: &context)
                try graph.chats.save(to: &context)
            }
        }
        store = nil
        let open = try OnDemandBenchmark.milliseconds { store = try Store(location, schema: BenchModelsSchema.self, options: options) }
        let write = try medianSingleWrite(store!, firstID: 100_000_000)
        store = nil
        return [("first commit", commit), ("open (load the graph)", open), ("single write", write)]
            // (A file written resident has no SQL indexes yet; the on-demand figures of files are OnDemandBenchmark's.)
            + (try server.map { try onDemandReads($0) } ?? [])
    }

    /// A store reading on demand: its open, then the first screen (the newest 20 messages of
    /// a chat, with their authors) five times, in `read` scopes: the first, and the median of
    /// the others.
    private static func onDemandReads(_ configuration: PostgresConnection.Configuration) throws -> [(String, Double)] {
        try analyze(configuration)
        let location = Store.Location.postgres(configuration)
        var store: Store?
        let open = try OnDemandBenchmark.milliseconds {
            store = try Store(location, schema: BenchModelsSchema.self, options: Store.Options(residency: .onDemand))
        }
        var screens: [Double] = []
        for _ in 0..<5 {
            screens.append(try OnDemandBenchmark.milliseconds {
                let messages = try store!.read { context in
                    Chat.query(0, in: context).related(\.$messages).sorted(by: \.timestamp.desc).limit(20).with(\.$author).resolve()
                }
                precondition(messages.count == 20 && messages.allSatisfy { $0.author != nil })
            })
        }
        // Ranked full text: candidates and statistics from the server's postings. Two words
        // that each occur in about 1% of the messages ("message 17 of chat 42").
        var searches: [Double] = []
        for _ in 0..<5 {
            searches.append(try OnDemandBenchmark.milliseconds {
                let found = try store!.read { context in Message.query(in: context).filter(.string(\.text, matches: "17 42")).limit(20).resolve() }
                precondition(!found.isEmpty)
            })
        }
        // A write on demand reads what it touches through its transaction, under the lock.
        let write = try medianSingleWrite(store!, firstID: 200_000_000)
        return [("on demand: open", open), ("on demand: first screen", screens[0]), ("on demand: first screen again", screens.dropFirst().sorted()[2]),
                ("on demand: full text 2 words", searches.dropFirst().sorted()[2]), ("on demand: single write", write)]
    }

    /// Single writes timed in a row, of which the median counts. The first ones on a new
    /// connection after a load are slower (by hand, 1.1 ms, then 0.25 falling to 0.05 over
    /// ten writes: statements not prepared yet, caches cold), so the median of 15 moved
    /// by a third between runs and builds; that of 200 measures the steady state.
    static let singleWrites = 200

    /// ``singleWrites`` writes, each a new message (ids from `firstID`) saved into chat 0;
    /// the median (ms).
    static func medianSingleWrite(_ store: Store, firstID: Int) throws -> Double {
        var writes: [Double] = []
        for index in 0..<singleWrites {
            writes.append(try OnDemandBenchmark.milliseconds {
                try store.write { context in
                    try Message(id: firstID + index, text: "new", timestamp: index, chat: .id(0), author: .id(0)).save(to: &context)
                }
            })
        }
        return writes.sorted()[writes.count / 2]
    }

    /// The first screen by hand: one join; the first, and the median of four more.
    private static func handWrittenFirstScreen(_ configuration: PostgresConnection.Configuration) throws -> [(String, Double)] {
        try analyze(configuration)
        let connection = try PostgresConnection(configuration)
        defer { connection.close() }
        var screens: [Double] = []
        for _ in 0..<5 {
            screens.append(try OnDemandBenchmark.milliseconds {
                let rows = try connection.execute("""
                    SELECT m.id, m.text, m.timestamp, u.id, u.name, u.age FROM "Message" m JOIN "Chat.messages" l ON l.target = m.id                     JOIN "Message.author" a ON a.owner = m.id JOIN "User" u ON u.id = a.target                     WHERE l.owner = $1 ORDER BY m.timestamp DESC LIMIT 20
                    """, [.integer(0)])
                precondition(rows.count == 20)
            })
        }
        return [("on demand: first screen", screens[0]), ("on demand: first screen again", screens.dropFirst().sorted()[2])]
    }

    /// The same rows by hand: one transaction of multi-row inserts.
    /// `indexed`: with the secondary indexes the store keeps for its readers too (the schema's
    /// ordered indexes, each link table's index by target), but no full-text postings and
    /// no commit log. `fullText`: with PostgreSQL's own full-text index on the messages' text
    /// too (GIN over `to_tsvector('simple', text)`), doing the work the store's postings do.
    static func handWritten(_ graph: Graph, _ configuration: PostgresConnection.Configuration, indexed: Bool, fullText: Bool,
                            copy: Bool) throws -> Double {
        let connection = try PostgresConnection(configuration)
        defer { connection.close() }
        let indexes = [
            "CREATE INDEX ON \"User\" (age)", "CREATE INDEX ON \"Message\" (timestamp)",
            "CREATE INDEX ON \"Chat.users\" (target)", "CREATE INDEX ON \"Chat.messages\" (target)", "CREATE INDEX ON \"Message.author\" (target)",
            "CREATE UNIQUE INDEX ON \"Chat.users\" (owner, position)", "CREATE UNIQUE INDEX ON \"Chat.messages\" (owner, position)",
        ]
        for sql in [
            "CREATE TABLE \"User\" (id bigint PRIMARY KEY, name text NOT NULL, age bigint NOT NULL)",
            "CREATE TABLE \"Chat\" (id bigint PRIMARY KEY, title text NOT NULL)",
            "CREATE TABLE \"Message\" (id bigint PRIMARY KEY, text text NOT NULL, timestamp bigint NOT NULL)",
            "CREATE TABLE \"Chat.users\" (owner bigint NOT NULL, position bigint NOT NULL, target bigint NOT NULL, PRIMARY KEY (owner, target))",
            "CREATE TABLE \"Chat.messages\" (owner bigint NOT NULL, position bigint NOT NULL, target bigint NOT NULL, PRIMARY KEY (owner, target))",
            "CREATE TABLE \"Message.author\" (owner bigint PRIMARY KEY, target bigint NOT NULL)",
        ] + (indexed ? indexes : []) + (fullText ? ["CREATE INDEX ON \"Message\" USING gin (to_tsvector('simple', text))"] : []) {
            try connection.execute(sql)
        }
        func insert(into table: String, _ rows: [[StoredValue]], _ connection: PostgresConnection) throws {
            try copy ? Self.copy(into: table, rows, connection) : Self.insert(into: table, rows, connection)
        }
        return try OnDemandBenchmark.milliseconds {
            try connection.execute("BEGIN")
            try insert(into: "\"User\" (id, name, age)", graph.users.map { [.integer(Int64($0.id)), .text($0.name), .integer(Int64($0.age))] }, connection)
            try insert(into: "\"Chat\" (id, title)", graph.chats.map { [.integer(Int64($0.id)), .text($0.title)] }, connection)
            let messages = graph.chats.flatMap { $0.messages ?? [] }
            try insert(into: "\"Message\" (id, text, timestamp)", messages.map { [.integer(Int64($0.id)), .text($0.text), .integer(Int64($0.timestamp))] }, connection)
            try insert(into: "\"Chat.users\" (owner, position, target)", graph.chats.flatMap { chat in
                (chat.$users.ids ?? []).enumerated().map { [.integer(Int64(chat.id)), .integer(Int64($0.offset)), .integer(Int64($0.element))] }
            }, connection)
            try insert(into: "\"Chat.messages\" (owner, position, target)", graph.chats.flatMap { chat in
                (chat.messages ?? []).enumerated().map { [.integer(Int64(chat.id)), .integer(Int64($0.offset)), .integer(Int64($0.element.id))] }
            }, connection)
            try insert(into: "\"Message.author\" (owner, target)", messages.map { [.integer(Int64($0.id)), .integer(Int64($0.$author.id!))] }, connection)
            try connection.execute("COMMIT")
        }
    }

    /// A message saved into chat 0 by hand, ``singleWrites`` times (``HandWrittenWrites``);
    /// the median (ms).
    private static func handWrittenSingleWrites(_ configuration: PostgresConnection.Configuration, observed: Bool = false) throws -> Double {
        let writer = try HandWrittenWrites(configuration, observed: observed)
        defer { writer.close() }
        return try writer.medianOf(singleWrites, firstIndex: 0)
    }

    /// Gathers the planner's statistics, as autovacuum would after a large load.
    static func analyze(_ configuration: PostgresConnection.Configuration) throws {
        let connection = try PostgresConnection(configuration)
        defer { connection.close() }
        try connection.execute("ANALYZE")
    }

    /// `rows` in one `COPY`, in its text format (the benchmark's values hold no character
    /// it escapes).
    private static func copy(into table: String, _ rows: [[StoredValue]], _ connection: PostgresConnection) throws {
        var text: [UInt8] = []
        for row in rows {
            for (index, value) in row.enumerated() {
                if index > 0 { text.append(UInt8(ascii: "\t")) }
                switch value {
                case .integer(let integer): text += String(integer).utf8
                case .text(let string): text += string.utf8
                default: fatalError("the benchmark copies integers and text only")
                }
            }
            text.append(UInt8(ascii: "\n"))
        }
        try connection.copy("COPY \(table) FROM STDIN", rows: text)
    }

    private static func insert(into table: String, _ rows: [[StoredValue]], _ connection: PostgresConnection) throws {
        guard let width = rows.first?.count else { return }
        for start in stride(from: 0, to: rows.count, by: 1000) {
            let batch = rows[start..<min(start + 1000, rows.count)]
            let values = batch.indices.map { row in
                "(" + (0..<width).map { "$\((row - start) * width + $0 + 1)" }.joined(separator: ", ") + ")"
            }
            try connection.execute("INSERT INTO \(table) VALUES \(values.joined(separator: ", "))", batch.flatMap { $0 })
        }
    }
}

/// `schemastore-bench postgres-load [on-demand] [processes...]`: N processes (1, 2, 4 by
/// default) share one PostgreSQL database for a few seconds, each a store running a mix of
/// reads (the newest 20 messages of a random chat, with their authors) and writes (a new
/// message into a random chat), 4 reads per write. Prints, per N, the operations per second
/// of all processes together and the median and p99 latency of reads and of writes. Each
/// process is this executable again (`postgres-load-child`). Its stores are resident
/// (every process follows the others' commits), or with `on-demand` read on demand (each
/// read a `store.read` on a snapshot of the server).
///
/// - `updates`: each write edits the text of a random message it reads first (of the 1,000
///   there at the start) instead.
/// - `hot`: each write edits the same message (a hot row: every write collides).
/// - `writes-only`: every operation is a write.
/// - `tcp`: the processes reach the server over TCP on 127.0.0.1 instead of its socket.
/// - `delay=<ms>`: over TCP, through a proxy that holds what goes either way for that long
///   (``DelayProxy``: a network between them).
/// - `databases=<n>`: the processes take turns among n databases of the same cluster, each
///   filled alike (a server whose tenants each have a database).
/// - `before-flush`: the stores' commits are visible before their flush
///   (``Store/CommitVisibility/beforeFlush``), so that a durable server flushes several at once.
/// - `followers=<n>`: n more processes, each a store that only follows the others' commits
///   (a service's readers), resident or on demand as the writers are. Each new message
///   carries the time its write began; a follower's observer notes how long after that it
///   heard of the message. Prints their lag's median and p99, and their CPU time per catch-up
///   (resident) or per change set delivered (on demand).
/// - `pace=<ms>`: each writing process waits that long after each write (a load that leaves
///   the cores idle between writes, so that followers' lag is their own path's).
enum PostgresLoadBenchmark {
    struct MissingMessage: Error {}

    static let seconds = 3.0
    static let chats = 100

    static func run(processCounts: [Int], residency: Store.Residency = .resident, updates: Bool = false, hot: Bool = false, writesOnly: Bool = false,
                    overTCP: Bool = false, delay: TimeInterval? = nil, databases: Int = 1, commitVisibility: Store.CommitVisibility = .afterFlush,
                    followers: Int = 0, pace: TimeInterval = 0) throws {
        guard let cluster = try TemporaryPostgresCluster.start(loopbackPort: overTCP || delay != nil ? Int.random(in: 20_000..<30_000) : nil) else {
            print(TemporaryPostgresCluster.missingServer)
            return
        }
        defer { cluster.stop() }
        let proxy = try delay.map { try DelayProxy(upstreamPort: cluster.port, delay: $0) }
        if let delay { print("Over TCP through a proxy holding each chunk \(delay * 1000) ms either way") }
        print("PostgreSQL stores under load (\(residency == .resident ? "resident" : "on demand")): \(seconds) s per run, "
              + (writesOnly ? "only writes, each " : "4 reads per ") + (hot ? "an edit of the same message" : updates ? "an edit of a message" : "a new message")
              + (databases > 1 ? ", the processes in turn on \(databases) databases" : "")
              + (commitVisibility == .beforeFlush ? ", commits visible before their flush" : "")
              + (followers > 0 ? ", \(followers) more process(es) following" : "")
              + (pace > 0 ? ", \(pace * 1000) ms between a process's writes" : ""))
        for processes in processCounts {
            var names: [String] = []
            var configuration: PostgresConnection.Configuration!
            for database in 0..<databases {
                let name = databases > 1 ? "load\(processes)_\(database)" : "load\(processes)"
                configuration = try cluster.createDatabase(name)
                names.append(name)
                let store = try Store(.postgres(configuration), schema: BenchModelsSchema.self)
                try store.write { context in
                    for id in 0..<chats { try User(id: id, name: "user\(id)", age: 20).save(to: &context) }
                    for id in 0..<chats {
                        try Chat(id: id, title: "chat\(id)", users: .ids([id]), messages: .relation((0..<10).map { index in
                            Message(id: id * 10 + index, text: "message \(index)", timestamp: index, author: .id(id))
                        })).save(to: &context)
                    }
                }
                store.close()
            }
            let children = try (0..<processes).map { index -> (Process, Pipe) in
                let process = Process()
                process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
                process.arguments = ["postgres-load-child", configuration.host, names[index % names.count], "\(index)", residency == .resident ? "resident" : "on-demand",
                                     hot ? "hot" : updates ? "updates" : "inserts", "\(proxy?.port ?? configuration.port)", writesOnly ? "writes-only" : "mixed",
                                     commitVisibility == .beforeFlush ? "before-flush" : "after-flush", followers > 0 ? "timed" : "untimed", "\(pace)"]
                let pipe = Pipe()
                process.standardOutput = pipe
                try process.run()
                return (process, pipe)
            }
            let following = try (0..<followers).map { index -> (Process, Pipe) in
                let process = Process()
                process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
                process.arguments = ["postgres-follow-child", configuration.host, names[index % names.count], "\(proxy?.port ?? configuration.port)",
                                     residency == .resident ? "resident" : "on-demand"]
                let pipe = Pipe()
                process.standardOutput = pipe
                try process.run()
                return (process, pipe)
            }
            var reads: [Double] = [], writes: [Double] = [], retries = [0, 0, 0, 0, 0, 0]
            for (process, pipe) in children {
                let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                for line in output.split(separator: "\n") {
                    let parts = line.split(separator: " ")
                    if parts.first == "stale", parts.count == 7 {
                        for index in 0..<6 { retries[index] += Int(parts[index + 1]) ?? 0 }
                        continue
                    }
                    guard parts.count == 2, let value = Double(parts[1]) else { continue }
                    if parts[0] == "r" { reads.append(value) } else if parts[0] == "w" { writes.append(value) }
                }
            }
            var lags: [Double] = [], followerCPU = 0.0, followed = 0
            for (process, pipe) in following {
                let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                for line in output.split(separator: "\n") {
                    let parts = line.split(separator: " ")
                    guard parts.count == 2, let value = Double(parts[1]) else { continue }
                    switch parts[0] {
                    case "lag": lags.append(value)
                    case "cpu": followerCPU += value
                    case "followed": followed += Int(value)
                    default: break
                    }
                }
            }
            reads.sort()
            writes.sort()
            lags.sort()
            func percentile(_ values: [Double], _ fraction: Double) -> String {
                values.isEmpty ? "-" : String(format: "%.2f", values[min(values.count - 1, Int(Double(values.count) * fraction))])
            }
            let throughput = Double(reads.count + writes.count) / seconds
            print("\(processes) process(es): \(Int(throughput)) ops/s; reads p50 \(percentile(reads, 0.5)) ms, p99 \(percentile(reads, 0.99)) ms; "
                  + "writes p50 \(percentile(writes, 0.5)) ms, p99 \(percentile(writes, 0.99)) ms (\(reads.count) reads, \(writes.count) writes)"
                  + (residency == .resident ? "; \(retries[5]) started on the database, \(retries[0]) stale, \(retries[1]) runs reading before the lock, \(retries[2]) of them again; caught up \(retries[3]) times from the log, \(retries[4]) by loading the graph" : ""))
            if followers > 0 {
                let unit = residency == .resident ? "catch-up" : "change set"
                print("  followers: lag p50 \(percentile(lags, 0.5)) ms, p99 \(percentile(lags, 0.99)) ms (\(lags.count) messages heard of); "
                      + "\(followed) \(unit)s, CPU \(String(format: "%.3f", followed > 0 ? followerCPU / Double(followed) : 0)) ms per \(unit)")
            }
        }
    }

    /// A follower of the load (`followers=<n>`): a store that only follows the writers'
    /// commits for the run's length (and half a second more). Prints `lag <ms>` per new
    /// message heard of (from the time its text carries), the process's CPU time (`cpu <ms>`,
    /// from the store's open) and how many catch-ups it made, resident, or change sets it
    /// was delivered, on demand (`followed <n>`).
    static func follower(host: String, port: Int, database: String, residency: Store.Residency) throws {
        let store = try Store(.postgres(PostgresConnection.Configuration(host: host, port: port, database: database, user: "schemagen")),
                              schema: BenchModelsSchema.self, options: Store.Options(residency: residency))
        let cpuBefore = cpuMilliseconds()
        let lags = LagRecord()
        let changes = store.changes(to: Message.self)
        let listening = Task {
            for await change in changes {
                let now = Date().timeIntervalSince1970
                lags.delivered()
                for id in change.changes(Message.self)?.inserted ?? [] {
                    guard let text = Message.query(id, in: change.context).resolve()?.text, let start = Double(text.split(separator: " ").last ?? "") else { continue }
                    lags.append((now - start) * 1000)
                }
            }
        }
        Thread.sleep(forTimeInterval: seconds + 0.5)
        listening.cancel()
        var lines = lags.values.map { "lag \($0)" }
        lines.append("cpu \(cpuMilliseconds() - cpuBefore)")
        lines.append("followed \(residency == .resident ? store.catchUps.followed + store.catchUps.reloaded : lags.changeSets)")
        print(lines.joined(separator: "\n"))
    }

    /// The process's CPU time so far (all its threads), in milliseconds.
    static func cpuMilliseconds() -> Double {
        Double(clock()) * 1000 / Double(CLOCKS_PER_SEC)
    }

    /// A follower's lags, appended from its observer's task.
    final class LagRecord: @unchecked Sendable {
        private let lock = NSLock()
        private var recorded: [Double] = []
        private var deliveredCount = 0
        func append(_ lag: Double) { lock.withLock { recorded.append(lag) } }
        /// Counts a change set delivered.
        func delivered() { lock.withLock { deliveredCount += 1 } }
        var values: [Double] { lock.withLock { recorded } }
        var changeSets: Int { lock.withLock { deliveredCount } }
    }

    /// One process of the load: prints `r <ms>` or `w <ms>` per operation.
    static func child(host: String, port: Int, database: String, index: Int, residency: Store.Residency, updates: Bool, hot: Bool, writesOnly: Bool,
                      commitVisibility: Store.CommitVisibility, timed: Bool = false, pace: TimeInterval = 0) throws {
        let store = try Store(.postgres(PostgresConnection.Configuration(host: host, port: port, database: database, user: "schemagen")),
                              schema: BenchModelsSchema.self, options: Store.Options(residency: residency, commitVisibility: commitVisibility))
        var random = SplitMix64(seed: UInt64(index + 1))
        var lines: [String] = []
        let end = Date().addingTimeInterval(seconds)
        var written = 0
        while Date() < end {
            let chat = Int.random(in: 0..<chats, using: &random)
            if writesOnly || Int.random(in: 0..<5, using: &random) == 0 {
                let id = 1_000_000 * (index + 1) + written
                written += 1
                let edited = hot ? 0 : chat * 10 + Int.random(in: 0..<10, using: &random)
                let time = try OnDemandBenchmark.milliseconds {
                    try store.write { context in
                        guard updates else {
                            // With followers, the time the write began, for their lag.
                            let text = timed ? "from \(index) at \(Date().timeIntervalSince1970)" : "from \(index)"
                            return try Message(id: id, text: text, timestamp: id, chat: .id(chat), author: .id(chat)).save(to: &context)
                        }
                        // Taken for new at first (AssumeNewPolicy), it is missing: the write runs again, reading it.
                        guard var message = Message.query(edited, in: context).resolve() else { throw MissingMessage() }
                        message.text = "edit \(id) of \(message.text.prefix(20))"
                        try message.save(to: &context)
                    }
                }
                lines.append("w \(time)")
                if pace > 0 { Thread.sleep(forTimeInterval: pace) }
            } else {
                let time = try OnDemandBenchmark.milliseconds {
                    let messages = try store.read { context in
                        Chat.query(chat, in: context).related(\.$messages).sorted(by: \.timestamp.desc).limit(20).with(\.$author).resolve()
                    }
                    precondition(!messages.isEmpty)
                }
                lines.append("r \(time)")
            }
        }
        let (runs, changed) = store.staleWritesReadUnlocked
        lines.append("stale \(store.staleWriteRetries) \(runs) \(changed) \(store.catchUps.followed) \(store.catchUps.reloaded) \(store.graphRunsSkipped)")
        print(lines.joined(separator: "\n"))
    }
}
