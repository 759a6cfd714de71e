import SchemaRuntime

/// A connection to a database server, as a driver module gives it to ``Store``
/// (`SchemaStorePostgres`'s `PostgresConnection`): SchemaStore writes the SQL, the driver
/// sends it. Keeping the driver out of SchemaStore keeps apps that never talk to a server
/// from linking its client library.
///
/// A connection is used by one thread at a time (the store serializes its use).
@_spi(StoreServer)
public protocol ServerConnection: AnyObject {
    /// Runs one statement with `parameters` bound to its placeholders; returns its rows.
    /// Integer columns read as `.integer`, floating-point ones as `.real`, binary ones as
    /// `.blob`, NULL as `.null`, the rest as `.text`.
    @discardableResult
    func execute(_ sql: String, _ parameters: [StoredValue]) throws -> [[StoredValue]]
    /// Runs statements in order, in as few round trips as the server allows; returns each
    /// one's rows, in order; throws the first failure, and the statements after it are not run.
    func executeEach(_ statements: [(sql: String, parameters: [StoredValue])]) throws -> [[[StoredValue]]]
    /// Runs `statements` as ``executeEach(_:)`` does, then `trailing` behind them without
    /// waiting for it, where the connection can: its answer is dropped and its failure not
    /// reported. It must do no harm when one of `statements` failed: it may run then.
    func executeEach(_ statements: [(sql: String, parameters: [StoredValue])],
                     thenIgnoringFailure trailing: (sql: String, parameters: [StoredValue])?) throws -> [[[StoredValue]]]
    /// Runs `statements` and `trailing` as ``executeEach(_:thenIgnoringFailure:)`` does, then
    /// `following` behind them, in the same round trip where the connection can: the server
    /// runs them once it ran `trailing`. Returns `statements`' answers, and `following`'s
    /// (nil when the connection cannot send them so, or one of them failed: the caller then
    /// ends what they began). When one of `statements` failed, `following` may still run,
    /// in the transaction they left aborted or after it: it must do no harm then.
    func executeEach(_ statements: [(sql: String, parameters: [StoredValue])],
                     thenIgnoringFailure trailing: (sql: String, parameters: [StoredValue])?,
                     thenReading following: [(sql: String, parameters: [StoredValue])]) throws
        -> (answers: [[[StoredValue]]], following: [[[StoredValue]]]?)
    /// Sends `sql` (no parameters) without waiting for its answer, which nobody needs; the
    /// connection's next use reads it first. Failures are not reported.
    func sendWithoutWaiting(_ sql: String)
    /// Sends `statements` now without waiting for their answers: the server starts on them
    /// while the store spells the rest of the batch, which ``executeEach(_:)`` sends behind
    /// them and whose answers follow theirs. Returns false when it sent nothing (the store
    /// then sends them with the batch).
    func sendAhead(_ statements: [(sql: String, parameters: [StoredValue])]) throws -> Bool
    /// Gives up the statements sent ahead (``sendAhead(_:)``) whose batch will not come: the
    /// write failed. Their answers are dropped, and the next statements go on their own,
    /// never behind them (where a failure of theirs would skip those too).
    func discardSentAhead() throws
    /// Runs `COPY table (columns) FROM STDIN` statement `sql`, streaming `rows` (in COPY's
    /// text format, ``ServerCopyRows``) to it: how many rows go fastest.
    func copy(_ sql: String, rows: [UInt8]) throws
    /// False once the connection is gone (the server restarted, the network dropped it):
    /// the store then opens a new one.
    var isConnected: Bool { get }
    /// Subscribes to the notifications sent to `channel`.
    func listen(_ channel: String) throws
    /// The notifications' payloads that arrived, without waiting: with the answers of
    /// statements run before, and, with `readingSocket`, sent since while the connection was
    /// idle (wait for ``socketDescriptor`` to be readable first).
    func receivedNotifications(readingSocket: Bool) throws -> [String]
    /// The connection's socket, readable when the server sent something while it was idle;
    /// -1 once closed. For `poll`, never to read from.
    var socketDescriptor: Int32 { get }
    /// The server's code for the failure `error` of a statement (PostgreSQL's SQLSTATE:
    /// `55P03`, a lock not granted in time); nil for another failure (a lost connection).
    func serverCode(of error: any Error) -> String?
    /// Work for the calling thread once it sent statements and waits for their answers:
    /// run before each such wait, where the thread would otherwise poll the socket.
    var whileWaiting: (@Sendable () -> Void)? { get set }
    func close()
}

extension ServerConnection {
    /// Sends `sql` without waiting for its answer, which nobody needs (ending a read-only
    /// transaction): a connection that can runs it without a round trip; here, it runs now
    /// and its failure is ignored.
    public func sendWithoutWaiting(_ sql: String) {
        _ = try? execute(sql, [])
    }

    /// Sends nothing ahead: the statements go with the batch.
    public func sendAhead(_ statements: [(sql: String, parameters: [StoredValue])]) throws -> Bool { false }

    /// `trailing` in a round trip of its own, once `statements` ran (not when they failed).
    public func executeEach(_ statements: [(sql: String, parameters: [StoredValue])],
                            thenIgnoringFailure trailing: (sql: String, parameters: [StoredValue])?) throws -> [[[StoredValue]]] {
        let answers = try executeEach(statements)
        if let trailing { _ = try? executeEach([trailing]) }
        return answers
    }

    /// `following` not sent: the caller runs them itself.
    public func executeEach(_ statements: [(sql: String, parameters: [StoredValue])],
                            thenIgnoringFailure trailing: (sql: String, parameters: [StoredValue])?,
                            thenReading following: [(sql: String, parameters: [StoredValue])]) throws
        -> (answers: [[[StoredValue]]], following: [[[StoredValue]]]?) {
        (try executeEach(statements, thenIgnoringFailure: trailing), nil)
    }

    /// Nothing was sent ahead.
    public func discardSentAhead() throws {}

    /// Runs statements as ``executeEach(_:)`` does; returns the last one's rows.
    @discardableResult
    func executeBatch(_ statements: [(sql: String, parameters: [StoredValue])]) throws -> [[StoredValue]] {
        try executeEach(statements).last ?? []
    }
}

/// A statement of a batch a store sends (``ServerConnection/send(_:)``).
enum ServerBatchStep: Sendable {
    case statement(sql: String, parameters: [StoredValue])
    /// `COPY ... FROM STDIN` and its rows (``ServerConnection/copy(_:rows:)``).
    case copy(sql: String, rows: [UInt8])
}

extension ServerConnection {
    /// Runs `steps` in order: the statements between two copies in one batch
    /// (``executeEach(_:)``), each copy on its own. Returns the last step's rows (none for
    /// a copy); throws the first failure, and the steps after it are not run.
    @discardableResult
    func send(_ steps: [ServerBatchStep]) throws -> [[StoredValue]] {
        try sendEach(steps).last ?? []
    }

    /// Runs `steps` as ``send(_:)`` does; returns each one's rows, in order. Then
    /// `trailing`, whose answer and failure are dropped, behind the last statements
    /// (``executeEach(_:thenIgnoringFailure:)``).
    func sendEach(_ steps: [ServerBatchStep], thenIgnoringFailure trailing: (sql: String, parameters: [StoredValue])? = nil) throws -> [[[StoredValue]]] {
        try sendEach(steps, thenIgnoringFailure: trailing, thenReading: []).answers
    }

    /// Runs `steps` and `trailing` as ``sendEach(_:thenIgnoringFailure:)`` does, then
    /// `following` (``executeEach(_:thenIgnoringFailure:thenReading:)``); returns the steps'
    /// answers and `following`'s (nil when not read).
    func sendEach(_ steps: [ServerBatchStep], thenIgnoringFailure trailing: (sql: String, parameters: [StoredValue])?,
                  thenReading following: [(sql: String, parameters: [StoredValue])]) throws
        -> (answers: [[[StoredValue]]], following: [[[StoredValue]]]?) {
        var statements: [(sql: String, parameters: [StoredValue])] = []
        var answers: [[[StoredValue]]] = []
        for step in steps {
            switch step {
            case .statement(let sql, let parameters):
                statements.append((sql, parameters))
            case .copy(let sql, let copied):
                if !statements.isEmpty { answers += try executeEach(statements) }
                statements.removeAll()
                try copy(sql, rows: copied)
                answers.append([])
            }
        }
        var followingAnswers: [[[StoredValue]]]?
        if !statements.isEmpty {
            let last = try executeEach(statements, thenIgnoringFailure: trailing, thenReading: following)
            answers += last.answers
            followingAnswers = last.following
        } else if let trailing {
            _ = try? executeEach([trailing])
        }
        return (answers, followingAnswers)
    }
}

/// A database server a store keeps its graph in: `Store(.postgres(configuration), ...)`,
/// from `SchemaStorePostgres`. Equal when they name the same server and database.
public struct ServerLocation: Sendable, Hashable, CustomStringConvertible {
    /// The server and database, never the password: `postgres://user@host:5432/db`.
    public let description: String
    let connect: @Sendable () throws -> any ServerConnection

    /// A location whose connections `connect` opens; `description` names it in errors.
    @_spi(StoreServer)
    public init(description: String, connect: @escaping @Sendable () throws -> any ServerConnection) {
        self.description = description
        self.connect = connect
    }

    public static func == (lhs: ServerLocation, rhs: ServerLocation) -> Bool { lhs.description == rhs.description }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }
}
