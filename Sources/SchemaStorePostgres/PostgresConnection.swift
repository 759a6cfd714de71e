import CLibPQ
import Foundation
import SchemaRuntime

/// One libpq connection: statements with bound parameters, rows as ``StoredValue``s.
///
/// Not thread-safe: its owner serializes its use. Every value is sent as a bound parameter
/// (`$1`, `$2`, ...), never spliced into SQL text.
public final class PostgresConnection: @unchecked Sendable {
    /// Where a connection goes. The password is never part of an error or a description.
    public struct Configuration: Sendable, Hashable {
        /// A host name, an address, or a folder holding the server's Unix socket.
        public var host: String
        public var port: Int
        public var database: String
        public var user: String
        public var password: String?
        /// How long connecting may take before it fails.
        public var connectTimeout: Int

        public init(host: String, port: Int = 5432, database: String, user: String, password: String? = nil, connectTimeout: Int = 5) {
            self.host = host
            self.port = port
            self.database = database
            self.user = user
            self.password = password
            self.connectTimeout = connectTimeout
        }
    }

    public let configuration: Configuration
    private var handle: OpaquePointer?
    private var prepared = PreparedStatements()
    /// How this connection waits for a batch's answers (``AnswerWait``).
    private var answerWait = AnswerWait()

    /// Work for the calling thread while the server answers: run each time statements were
    /// sent and their answers are awaited, before the wait. A store frees there the graph
    /// its last write replaced, work that would otherwise come before a write returns.
    public var whileWaiting: (@Sendable () -> Void)?

    /// Connects; throws ``PostgresError/cannotConnect(host:database:reason:)`` within the
    /// configuration's timeout for a server that is down or refuses the credentials.
    public init(_ configuration: Configuration) throws {
        self.configuration = configuration
        // Over TCP, a server that vanished (a network partition, a machine gone) is noticed
        // within about a minute rather than when the system gives up (hours): keepalives
        // probe an idle connection, and unacknowledged data fails after 60 s. A slow but
        // live server acknowledges, so long statements are not cut. (Unix sockets ignore both.)
        var keys = ["host", "port", "dbname", "user", "connect_timeout", "application_name",
                    "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "tcp_user_timeout"]
        var values = [configuration.host, "\(configuration.port)", configuration.database, configuration.user,
                      "\(max(configuration.connectTimeout, 1))", "SchemaStore", "1", "30", "10", "3", "60000"]
        if let password = configuration.password {
            keys.append("password")
            values.append(password)
        }
        // Keywords and values as separate arrays: nothing the caller passes is parsed as a
        // connection string.
        handle = Self.withCStrings(keys) { keyPointers in
            Self.withCStrings(values) { valuePointers in PQconnectdbParams(keyPointers, valuePointers, 0) }
        }
        guard let handle, PQstatus(handle) == CONNECTION_OK else {
            let reason = handle.map { Self.message(PQerrorMessage($0)) } ?? "out of memory"
            PQfinish(handle)
            self.handle = nil
            throw PostgresError.cannotConnect(host: configuration.host, database: configuration.database,
                                              reason: Self.redacted(reason, password: configuration.password))
        }
        if let problem = Self.versionProblem(serverVersion: PQserverVersion(handle)) {
            PQfinish(handle)
            self.handle = nil
            throw PostgresError.cannotConnect(host: configuration.host, database: configuration.database, reason: problem)
        }
        // The server's notices ("index ... does not exist, skipping") would go to the
        // process's standard error: a library keeps quiet.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    /// The oldest server version the store's SQL runs on (`server_version_num`): 13, for
    /// `FETCH FIRST ... WITH TIES` (related lists, `RelatedListRead`).
    public static let oldestServerVersion: Int32 = 130_000

    /// Why a server reporting `serverVersion` (`PQserverVersion`: major × 10,000 + minor
    /// since version 10) cannot serve a store; nil where it can.
    static func versionProblem(serverVersion: Int32) -> String? {
        guard serverVersion < oldestServerVersion else { return nil }
        let version = serverVersion >= 100_000 ? "\(serverVersion / 10_000).\(serverVersion % 10_000)"
            : "\(serverVersion / 10_000).\(serverVersion / 100 % 100).\(serverVersion % 100)"
        return "the server runs PostgreSQL \(version); SchemaStore needs PostgreSQL \(oldestServerVersion / 10_000) or later"
    }

    deinit { close() }

    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        unansweredPipelines = 0
        ahead = []
        answersEnded = false
    }

    /// Statements sent by ``sendWithoutWaiting(_:)`` whose answers are unread, each in a
    /// pipeline of its own: the connection stays in pipeline mode meanwhile. (Not private:
    /// a test puts it out of step with libpq's, to check that reading stops.)
    var unansweredPipelines = 0

    /// Sends `sql` (no parameters) and returns at once: the server runs it as it arrives.
    /// For a statement whose answer nobody needs, such as the `ROLLBACK` that ends a
    /// read-only transaction. Its answer is read by the connection's next use: a batch
    /// (``executeEach(_:)``) goes out at once, behind it, and reads it first, so the
    /// statement costs no round trip; other uses wait for it first. Its failure is not
    /// reported; a connection it finds lost fails its next use.
    public func sendWithoutWaiting(_ sql: String) {
        guard let handle else { return }
        guard PQenterPipelineMode(handle) == 1 else {
            _ = try? execute(sql)
            return
        }
        if sendInPipelineOfItsOwn(sql, on: handle) {
            unansweredPipelines += 1
        } else {
            // Not sent whole (a connection failing): closed, as lost. The server ends its
            // transaction with it, and the next use opens another.
            close()
        }
    }

    /// Queues `sql` (no parameters, unnamed: its answer is dropped unread, and with it a
    /// preparing's) and a sync behind it, which sends what is queued. False when either failed.
    private func sendInPipelineOfItsOwn(_ sql: String, on handle: OpaquePointer) -> Bool {
        send(sql, named: nil, [], on: handle) && PQpipelineSync(handle) == 1
    }

    /// Reads (and drops) the answers of the statements sent without waiting.
    private func readUnanswered(_ handle: OpaquePointer) throws {
        var afterEnd = false
        while unansweredPipelines > 0 {
            // NULL ends each statement's results; a lost connection ends them all.
            let next: OpaquePointer?
            do {
                next = try nextResult(handle, afterEnd: &afterEnd)
            } catch {
                unansweredPipelines = 0
                throw error
            }
            guard let result = next else { continue }
            if PQresultStatus(result) == PGRES_PIPELINE_SYNC { unansweredPipelines -= 1 }
            PQclear(result)
        }
    }

    /// The connection's handle, out of pipeline mode with every answer read (those of
    /// statements sent without waiting); throws for a closed connection.
    private func readyHandle() throws -> OpaquePointer {
        guard let handle else { throw lost("the connection is closed") }
        try discardSentAhead(handle)
        if unansweredPipelines > 0 {
            try readUnanswered(handle)
            PQexitPipelineMode(handle)
        }
        return handle
    }

    /// Whether the connection is still up: false once the server went away or the
    /// connection was closed (libpq notices when a statement fails).
    public var isConnected: Bool {
        guard let handle, !answersEnded else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Set when libpq had no more answers for a pipeline that was not answered to its end
    /// (``nextResult(_:afterEnd:)``): the connection no longer knows where its answers are,
    /// and counts as lost (the store opens another).
    private var answersEnded = false

    /// The next result of a pipeline being read; nil at the end of one statement's results.
    /// Throws when the connection was lost, and when libpq has nothing more to give although
    /// the pipeline's sync was not read (two ends in a row, `afterEnd`): asking again would
    /// return nothing forever, a loop that never ends.
    private func nextResult(_ handle: OpaquePointer, afterEnd: inout Bool) throws -> OpaquePointer? {
        if let result = PQgetResult(handle) {
            afterEnd = false
            return result
        }
        if PQstatus(handle) != CONNECTION_OK { throw lost(Self.message(PQerrorMessage(handle))) }
        if afterEnd {
            answersEnded = true
            throw lost("the server's answers ended before the end of what was sent")
        }
        afterEnd = true
        return nil
    }

    /// Runs `sql` with `parameters` bound to `$1`, `$2`, ...; returns the rows, each value
    /// as its column's type reads (`bigint` and `integer` as integers, `double precision`
    /// as reals, `bytea` as blobs, NULL as `.null`, the rest as text).
    @discardableResult
    public func execute(_ sql: String, _ parameters: [StoredValue] = []) throws -> [[StoredValue]] {
        let handle = try readyHandle()
        let texts: [String?] = try parameters.map(text)
        defer { prepared.ran(sql) }
        // Preparing fails where running would (a syntax error, a missing table): then its
        // result is the statement's.
        var failedPreparing: OpaquePointer?
        if prepared.name(of: sql) == nil, let (name, droppingAll) = prepared.nameToPrepare(sql) {
            if droppingAll { PQclear(PQexec(handle, PreparedStatements.dropAll)) }
            let preparing = PQprepare(handle, name, sql, Int32(parameters.count), nil)
            if PQresultStatus(preparing) == PGRES_COMMAND_OK {
                prepared.prepared(sql, as: name)
                PQclear(preparing)
            } else {
                failedPreparing = preparing
            }
        }
        let name = prepared.name(of: sql)
        let result: OpaquePointer? = try failedPreparing ?? {
            let sent = Self.withOptionalCStrings(texts) { pointers in
                if let name { return PQsendQueryPrepared(handle, name, Int32(parameters.count), pointers, nil, nil, 0) }
                return PQsendQueryParams(handle, sql, Int32(parameters.count), nil, pointers, nil, nil, 0)
            }
            guard sent == 1 else { throw lost(Self.message(PQerrorMessage(handle))) }
            whileWaiting?()
            answerWait.wait(handle)
            // One statement: one result, then none (as PQexec, the last if more came, and
            // a COPY's at once: it stays the result until the copy ends).
            var last: OpaquePointer?
            while let next = PQgetResult(handle) {
                PQclear(last)
                last = next
                let status = PQresultStatus(next)
                if status == PGRES_COPY_IN || status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH { break }
            }
            return last
        }()
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw failure(of: result, handle) }
        return Self.rows(result)
    }

    private static func rows(_ result: OpaquePointer?) -> [[StoredValue]] {
        var rows: [[StoredValue]] = []
        let columns = PQnfields(result)
        for row in 0..<PQntuples(result) {
            rows.append((0..<columns).map { column in value(result, row, column) })
        }
        return rows
    }

    /// Runs `statements` in order without waiting for each one's answer (libpq's pipeline
    /// mode): one round trip per few hundred statements instead of one each. Returns the
    /// rows of the last statement. Throws the first failure; the statements after it are not run.
    @discardableResult
    public func executeBatch(_ statements: [(sql: String, parameters: [StoredValue])]) throws -> [[StoredValue]] {
        try executeEach(statements).last ?? []
    }

    /// Runs `statements` as ``executeBatch(_:)`` does; returns each one's rows, in order
    /// (none for a statement that returns no rows). Statements sent ahead
    /// (``sendAhead(_:)``) go first: their rows come first, and a failure among them fails
    /// this batch.
    public func executeEach(_ statements: [(sql: String, parameters: [StoredValue])]) throws -> [[[StoredValue]]] {
        try executeEach(statements, thenIgnoringFailure: nil)
    }

    /// Runs `statements` as ``executeEach(_:)`` does, then sends `trailing` behind them
    /// without waiting for it: its answer is dropped and its failure not reported. It goes
    /// with them, but in a pipeline of its own, which the server runs after it answered
    /// them: for what must neither fail nor delay the statements before it, a notification
    /// after a `COMMIT`. It is prepared as they are (its preparing goes among them, where
    /// its answer is read). If one of them failed, it still runs: in the transaction they
    /// left aborted, where it fails, or after it, where it fails too when its preparing was
    /// among what the failure skipped.
    public func executeEach(_ statements: [(sql: String, parameters: [StoredValue])],
                            thenIgnoringFailure trailing: (sql: String, parameters: [StoredValue])?) throws -> [[[StoredValue]]] {
        try executeEach(statements, thenIgnoringFailure: trailing, thenReading: []).answers
    }

    /// Runs `statements` and `trailing` as ``executeEach(_:thenIgnoringFailure:)`` does, then
    /// `following` in a pipeline of their own behind `trailing`: sent together, in one round
    /// trip, the server running `following` once it ran `trailing` (reading the state a
    /// write's `COMMIT` among `statements` made, and what committed since). Returns
    /// `statements`' answers, and `following`'s, or nil when one of those failed (the
    /// caller ends a transaction they began). When one of `statements` failed, `following`
    /// still runs, in the transaction they left aborted (where each fails) or after it, and
    /// its answers are dropped: it must do no harm then.
    public func executeEach(_ statements: [(sql: String, parameters: [StoredValue])],
                            thenIgnoringFailure trailing: (sql: String, parameters: [StoredValue])?,
                            thenReading following: [(sql: String, parameters: [StoredValue])]) throws
        -> (answers: [[[StoredValue]]], following: [[[StoredValue]]]?) {
        // Statements sent without waiting stay unanswered: these go behind them, in the
        // same pipeline mode, and their answers are read first.
        guard let handle else { throw lost("the connection is closed") }
        if statements.isEmpty && ahead.isEmpty { return ([], nil) }
        var answers: [[[StoredValue]]] = []
        answers.reserveCapacity(ahead.count + statements.count)
        let trailingTexts = try trailing?.parameters.map(text)
        let followingTexts = try following.map { try $0.parameters.map(text) }
        var followingAnswers: [[[StoredValue]]]?
        var start = 0
        repeat {
            let chunk = statements[start..<min(start + Self.pipelineLength, statements.count)]
            start += Self.pipelineLength
            let isLast = start >= statements.count
            // Every value is checked before the first statement goes: a pipeline is never
            // left with answers unread.
            let chunkTexts: [[String?]]
            do {
                chunkTexts = try chunk.map { try $0.parameters.map(text) }
            } catch {
                try settleAhead(handle)
                throw error
            }
            guard PQenterPipelineMode(handle) == 1 else {
                for statement in chunk { answers.append(try execute(statement.sql, statement.parameters)) }
                if isLast, let trailing { _ = try? execute(trailing.sql, trailing.parameters) }
                if isLast, !following.isEmpty { followingAnswers = try? following.map { try execute($0.sql, $0.parameters) } }
                continue
            }
            defer { PQexitPipelineMode(handle) }
            var answering = ahead
            ahead = []
            var failure: PostgresError?
            for (statement, texts) in zip(chunk, chunkTexts) {
                if let lost = send(statement.sql, texts, on: handle, answering: &answering) { failure = lost; break }
            }
            // The trailing statement's text is prepared here, where its preparing is
            // answered and so recorded (its own answers are dropped unread): a notification
            // sent unnamed behind every write cost the server a parse and a plan each time.
            // Behind statements that failed, the preparing is skipped with them, and the
            // trailing statement fails as it would have in their aborted transaction.
            var trailingName: String?
            if failure == nil, isLast, let trailing {
                switch nameForSending(trailing.sql, parameterCount: trailing.parameters.count, on: handle, answering: &answering) {
                case .success(let name): trailingName = name
                case .failure(let lost): failure = lost
                }
            }
            if failure == nil, PQpipelineSync(handle) != 1 { failure = lost(Self.message(PQerrorMessage(handle))) }
            var trailingSent = false
            if failure == nil, isLast, let trailing, let trailingTexts {
                // A pipeline of its own behind the sync: the server answers the statements
                // above at the sync, before it runs this one, which it then does while the
                // caller goes on; its answers are dropped at the connection's next use.
                trailingSent = send(trailing.sql, named: trailingName, trailingTexts, on: handle) && PQpipelineSync(handle) == 1
                if !trailingSent { failure = lost(Self.message(PQerrorMessage(handle))) }
            }
            var followingAnswering: Answering?
            if failure == nil, isLast, !following.isEmpty {
                var answering: Answering = []
                for (statement, texts) in zip(following, followingTexts) {
                    if let lost = send(statement.sql, texts, on: handle, answering: &answering) { failure = lost; break }
                }
                if failure == nil, PQpipelineSync(handle) != 1 { failure = lost(Self.message(PQerrorMessage(handle))) }
                followingAnswering = answering
            }
            if let failure { throw failure }
            whileWaiting?()
            try readUnanswered(handle)
            answerWait.wait(handle)
            do {
                try readAnswers(handle, answering, into: &answers)
            } catch {
                // The pipelines behind are answered at the connection's next use.
                unansweredPipelines += (trailingSent ? 1 : 0) + (followingAnswering == nil ? 0 : 1)
                throw error
            }
            if trailingSent { unansweredPipelines += 1 }
            if let followingAnswering {
                // Their answers come behind the trailing statement's, which are dropped.
                var read: [[[StoredValue]]] = []
                do {
                    try readUnanswered(handle)
                    try readAnswers(handle, followingAnswering, into: &read)
                    followingAnswers = read
                } catch {
                    // The statements before were answered: a failure here is theirs alone.
                    followingAnswers = nil
                }
            }
        } while start < statements.count
        return (answers, followingAnswers)
    }

    /// What each answer of a pipeline is, in order.
    private typealias Answering = [Answer]

    private enum Answer {
        /// A statement's, returned to the caller.
        case statement
        /// The preparing of a text, recorded as prepared only once the server says it is.
        case preparing(sql: String, name: String)
        /// The dropping of every prepared text (``PreparedStatements/dropAll``).
        case droppingAll
    }

    /// Statements sent ahead of the next batch (``sendAhead(_:)``), answers unread.
    private var ahead: Answering = []

    /// Sends `statements` now and returns without waiting: the server starts on them while
    /// the caller prepares the rest of its batch, which ``executeEach(_:)`` sends behind
    /// them (their answers come first in what it returns). A ``copy(_:rows:)`` runs after
    /// them, or throws their failure; any other use of the connection first ends their
    /// pipeline and drops their answers (a write that failed before its batch, rolling
    /// back). Returns false when it sent nothing.
    public func sendAhead(_ statements: [(sql: String, parameters: [StoredValue])]) throws -> Bool {
        guard let handle else { throw lost("the connection is closed") }
        let texts: [[String?]] = try statements.map { try $0.parameters.map(text) }
        guard !statements.isEmpty else { return true }
        guard PQenterPipelineMode(handle) == 1 else { return false }
        for (statement, texts) in zip(statements, texts) {
            if let failure = send(statement.sql, texts, on: handle, answering: &ahead) {
                close()
                throw failure
            }
        }
        if PQflush(handle) != 0 {
            let failure = lost(Self.message(PQerrorMessage(handle)))
            close()
            throw failure
        }
        return true
    }

    /// Ends the statements sent ahead of a batch that will not come (their write failed
    /// before it): their pipeline is closed on its own, and its answers, not wanted, are read
    /// with the next use. A statement sent next never joins it, so that a failure among
    /// them (or the aborted transaction they ran in) cannot take that statement down with
    /// it: the `ROLLBACK` of the failed write.
    public func discardSentAhead() throws {
        guard let handle else { return }
        try discardSentAhead(handle)
    }

    private func discardSentAhead(_ handle: OpaquePointer) throws {
        guard !ahead.isEmpty else { return }
        ahead = []
        guard PQpipelineSync(handle) == 1 else {
            let failure = lost(Self.message(PQerrorMessage(handle)))
            close()
            throw failure
        }
        unansweredPipelines += 1
    }

    /// Ends the pipeline of statements sent ahead and reads their answers; throws their failure.
    private func settleAhead(_ handle: OpaquePointer) throws {
        guard !ahead.isEmpty else { return }
        let answering = ahead
        ahead = []
        defer { PQexitPipelineMode(handle) }
        guard PQpipelineSync(handle) == 1 else { throw lost(Self.message(PQerrorMessage(handle))) }
        try readUnanswered(handle)
        var answers: [[[StoredValue]]] = []
        try readAnswers(handle, answering, into: &answers)
    }

    /// Queues one statement of a pipeline (preparing its text first when it is worth a
    /// name); returns the failure to send.
    private func send(_ sql: String, _ texts: [String?], on handle: OpaquePointer, answering: inout Answering) -> PostgresError? {
        let name: String?
        switch nameForSending(sql, parameterCount: texts.count, on: handle, answering: &answering) {
        case .success(let found): name = found
        case .failure(let failure): return failure
        }
        if !send(sql, named: name, texts, on: handle) { return lost(Self.message(PQerrorMessage(handle))) }
        answering.append(.statement)
        return nil
    }

    /// Queues `sql` with `texts`: as the prepared statement `name`, or unnamed.
    private func send(_ sql: String, named name: String?, _ texts: [String?], on handle: OpaquePointer) -> Bool {
        let count = Int32(texts.count)
        return Self.withOptionalCStrings(texts) { pointers in
            if let name { return PQsendQueryPrepared(handle, name, count, pointers, nil, nil, 0) }
            return PQsendQueryParams(handle, sql, count, nil, pointers, nil, nil, 0)
        } == 1
    }

    /// The name `sql` is prepared under, queueing its preparing first (in the pipeline
    /// `answering` describes) when it is worth a name now; nil when it goes unnamed.
    private func nameForSending(_ sql: String, parameterCount: Int, on handle: OpaquePointer,
                                answering: inout Answering) -> Result<String?, PostgresError> {
        defer { prepared.ran(sql) }
        if let name = prepared.name(of: sql) { return .success(name) }
        guard let (new, droppingAll) = prepared.nameToPrepare(sql) else { return .success(nil) }
        if droppingAll {
            if PQsendQueryParams(handle, PreparedStatements.dropAll, 0, nil, nil, nil, nil, 0) != 1 { return .failure(lost(Self.message(PQerrorMessage(handle)))) }
            answering.append(.droppingAll)
        }
        if PQsendPrepare(handle, new, sql, Int32(parameterCount), nil) != 1 { return .failure(lost(Self.message(PQerrorMessage(handle)))) }
        answering.append(.preparing(sql: sql, name: new))
        return .success(new)
    }

    /// Reads a pipeline's results up to its sync point: each statement's rows appended to
    /// `answers`; throws the first failure.
    private func readAnswers(_ handle: OpaquePointer, _ answering: Answering, into answers: inout [[[StoredValue]]]) throws {
        var failure: PostgresError?
        var answered = 0
        var afterEnd = false
        while true {
            guard let result = try nextResult(handle, afterEnd: &afterEnd) else { continue }
            let status = PQresultStatus(result)
            let answer = status != PGRES_PIPELINE_SYNC && answered < answering.count ? answering[answered] : .statement
            if status == PGRES_COMMAND_OK, case .preparing(let sql, let name) = answer { prepared.prepared(sql, as: name) }
            answered += 1
            // The connection's own answers are not the caller's, failures aside.
            let isOwn = if case .statement = answer { false } else { true }
            if isOwn && status != PGRES_FATAL_ERROR {
                PQclear(result)
                continue
            }
            if status == PGRES_TUPLES_OK { answers.append(Self.rows(result)) } else if status == PGRES_COMMAND_OK { answers.append([]) }
            if status == PGRES_FATAL_ERROR, failure == nil { failure = self.failure(of: result, handle) }
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        if let failure { throw failure }
    }

    /// Runs `COPY ... FROM STDIN` statement `sql`, streaming `rows` to it: the rows in
    /// COPY's text format (fields separated by tabs, each row ending in a newline, `\N` for
    /// NULL, `\\`, `\t`, `\n` and `\r` escaped). The server reads many rows this way
    /// far faster than as statements. Throws as ``execute(_:_:)`` does, and, before sending
    /// anything, for a NUL byte, which no text field can hold (SQLSTATE 22021).
    public func copy(_ sql: String, rows: [UInt8]) throws {
        if let handle { try settleAhead(handle) }
        let handle = try readyHandle()
        guard !rows.contains(0) else {
            throw PostgresError.statementFailed(host: configuration.host, database: configuration.database, state: "22021",
                                                reason: "a text value holds a NUL character (U+0000), which PostgreSQL cannot store")
        }
        let started = PQexec(handle, sql)
        guard PQresultStatus(started) == PGRES_COPY_IN else {
            defer { PQclear(started) }
            throw failure(of: started, handle)
        }
        PQclear(started)
        // In pieces of 1 MiB: libpq takes a piece's length as a 32-bit integer, and rows of
        // long texts can pass 2 GiB.
        var sent: Int32 = 1
        rows.withUnsafeBytes { bytes in
            for start in stride(from: 0, to: bytes.count, by: 1 << 20) where sent == 1 {
                let piece = UnsafeRawBufferPointer(rebasing: bytes[start..<min(start + (1 << 20), bytes.count)])
                sent = PQputCopyData(handle, piece.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(piece.count))
            }
        }
        if sent == 1 { sent = PQputCopyEnd(handle, nil) }
        // The COPY's result, then the end of the results (also after a failure to send).
        var failure: PostgresError? = sent == 1 ? nil : lost(Self.message(PQerrorMessage(handle)))
        while let result = PQgetResult(handle) {
            if failure == nil, PQresultStatus(result) != PGRES_COMMAND_OK { failure = self.failure(of: result, handle) }
            PQclear(result)
        }
        if let failure { throw failure }
    }

    /// The error a statement's result `result` reports: a lost connection, or the server's
    /// failure with its SQLSTATE.
    private func failure(of result: OpaquePointer?, _ handle: OpaquePointer) -> PostgresError {
        if PQstatus(handle) != CONNECTION_OK { return lost(Self.message(PQerrorMessage(handle))) }
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? "?????"
        return PostgresError.statementFailed(host: configuration.host, database: configuration.database, state: state,
                                             reason: Self.message(PQresultErrorMessage(result)))
    }

    /// Subscribes this connection to `channel` (`LISTEN`): ``waitForNotifications(timeout:)``
    /// then returns what `NOTIFY` sends there.
    public func listen(_ channel: String) throws {
        try execute("LISTEN \"" + channel.replacingOccurrences(of: "\"", with: "\"\"") + "\"")
    }

    /// The payloads of the notifications that arrived, waiting up to `timeout` seconds for
    /// the first; empty when none came.
    public func waitForNotifications(timeout: Double) throws -> [String] {
        let handle = try readyHandle()
        var payloads = Self.notifications(handle)
        if !payloads.isEmpty { return payloads }
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        guard descriptor.fd >= 0 else { throw lost("the connection has no socket") }
        let ready = poll(&descriptor, 1, Int32(timeout * 1000))
        if ready > 0 {
            guard PQconsumeInput(handle) == 1 else { throw lost(Self.message(PQerrorMessage(handle))) }
            payloads = Self.notifications(handle)
        }
        return payloads
    }

    /// The payloads of the notifications that arrived, without waiting: those that came
    /// with the answers of statements run before, and, with `readingSocket`, those the server
    /// sent since, while the connection was idle (wait for ``socketDescriptor`` to be
    /// readable first). Without `readingSocket`, statements sent without waiting stay
    /// unanswered (their answers are read by the connection's next use, or once the socket
    /// is readable).
    public func receivedNotifications(readingSocket: Bool) throws -> [String] {
        if !readingSocket, unansweredPipelines > 0, ahead.isEmpty, let handle { return Self.notifications(handle) }
        let handle = try readyHandle()
        if readingSocket, PQconsumeInput(handle) != 1 { throw lost(Self.message(PQerrorMessage(handle))) }
        return Self.notifications(handle)
    }

    /// The connection's socket, readable when the server sent something (a notification,
    /// while idle); -1 once closed. For `poll`, never to read from.
    public var socketDescriptor: Int32 {
        guard let handle else { return -1 }
        return PQsocket(handle)
    }

    private static func notifications(_ handle: OpaquePointer) -> [String] {
        var payloads: [String] = []
        while let notification = PQnotifies(handle) {
            payloads.append(notification.pointee.extra.map { String(cString: $0) } ?? "")
            PQfreemem(notification)
        }
        return payloads
    }

    /// Statements sent before reading their answers: few enough that neither side's socket
    /// buffer fills while the other waits.
    static let pipelineLength = 500

    private func lost(_ reason: String) -> PostgresError {
        .connectionLost(host: configuration.host, database: configuration.database, reason: reason)
    }

    // MARK: Values

    /// A parameter in PostgreSQL's text format (nil for NULL). Throws for text holding a NUL
    /// character (U+0000), which PostgreSQL's text cannot hold and libpq would cut the value
    /// at: the failure the server gives such text (SQLSTATE 22021), before anything is sent.
    func text(_ value: StoredValue) throws -> String? {
        switch value {
        case .null: return nil
        case .integer(let integer): return String(integer)
        case .real(let real): return real.isNaN ? "NaN" : real.isInfinite ? (real > 0 ? "Infinity" : "-Infinity") : "\(real)"
        case .text(let text):
            guard !Self.holdsNUL(text) else {
                throw PostgresError.statementFailed(host: configuration.host, database: configuration.database, state: "22021",
                                                    reason: "a text value holds a NUL character (U+0000), which PostgreSQL cannot store")
            }
            return text
        case .blob(let data): return Self.hex(data)
        }
    }

    /// Whether `text` holds U+0000, which PostgreSQL's `text` cannot: asked of every text
    /// bound, so it searches the bytes with `memchr` rather than element by element
    /// (a percent of a single write's instructions).
    static func holdsNUL(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let start = bytes.baseAddress, !bytes.isEmpty else { return false }
            return memchr(start, 0, bytes.count) != nil
        }
    }

    /// `data` as a `bytea` literal in hex (`\\x00ff`).
    static func hex(_ data: Data) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        bytes.reserveCapacity(2 + 2 * data.count)
        for byte in data {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 15)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    // Type OIDs of the columns read back typed (pg_type.h).
    private static let int8 = 20, int2 = 21, int4 = 23, float4 = 700, float8 = 701, bytea = 17, bool = 16

    private static func value(_ result: OpaquePointer?, _ row: Int32, _ column: Int32) -> StoredValue {
        guard PQgetisnull(result, row, column) == 0, let bytes = PQgetvalue(result, row, column) else { return .null }
        let text = String(decoding: UnsafeRawBufferPointer(start: bytes, count: Int(PQgetlength(result, row, column))), as: UTF8.self)
        switch Int(PQftype(result, column)) {
        case int8, int2, int4: return Int64(text).map(StoredValue.integer) ?? .text(text)
        case float4, float8: return Double(text).map(StoredValue.real) ?? .text(text)
        case bool: return .integer(text == "t" ? 1 : 0)
        case bytea: return .blob(hexBytes(text.dropFirst(2)))
        default: return .text(text)
        }
    }

    private static func hexBytes(_ hex: Substring) -> Data {
        var data = Data()
        var index = hex.startIndex
        while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
            if let byte = UInt8(hex[index..<next], radix: 16) { data.append(byte) }
            index = next
        }
        return data
    }

    // MARK: C strings

    private static func message(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "unknown error"
    }

    /// `reason` with any occurrence of the password removed (libpq does not echo it; this
    /// keeps it so if that ever changes).
    static func redacted(_ reason: String, password: String?) -> String {
        guard let password, !password.isEmpty else { return reason }
        return reason.replacingOccurrences(of: password, with: "<password>")
    }

    private static func withCStrings<Result>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> Result) -> Result {
        withOptionalCStrings(strings, terminated: true) { body($0) }
    }

    /// `strings` as C strings (nil stays nil; with `terminated`, a nil after the last), for
    /// as long as `body` runs. Every string goes into one buffer, each ending in a NUL: a
    /// statement's parameters are copied once, not converted and then copied each (two
    /// allocations a parameter, about 2% of a single write's instructions).
    private static func withOptionalCStrings<Result>(_ strings: [String?], terminated: Bool = false,
                                                     _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> Result) -> Result {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(strings.reduce(0) { $0 + ($1?.utf8.count ?? -1) + 1 })
        var offsets: [Int?] = []
        offsets.reserveCapacity(strings.count)
        for string in strings {
            guard var string else {
                offsets.append(nil)
                continue
            }
            offsets.append(bytes.count)
            string.withUTF8 { bytes.append(contentsOf: $0) }
            bytes.append(0)
        }
        return bytes.withUnsafeBufferPointer { buffer in
            var pointers: [UnsafePointer<CChar>?] = offsets.map { offset in
                offset.map { UnsafeRawPointer(buffer.baseAddress! + $0).assumingMemoryBound(to: CChar.self) }
            }
            if terminated || pointers.isEmpty { pointers.append(nil) }
            return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
        }
    }
}
