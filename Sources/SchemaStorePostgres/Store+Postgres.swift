@_spi(StoreServer) import SchemaStore
import SchemaRuntime

/// A ``PostgresConnection`` as the store's server connection.
private final class StoreConnection: ServerConnection {
    let connection: PostgresConnection

    init(_ connection: PostgresConnection) { self.connection = connection }

    func execute(_ sql: String, _ parameters: [StoredValue]) throws -> [[StoredValue]] {
        try connection.execute(sql, parameters)
    }

    func executeEach(_ statements: [(sql: String, parameters: [StoredValue])]) throws -> [[[StoredValue]]] {
        try connection.executeEach(statements)
    }

    func executeEach(_ statements: [(sql: String, parameters: [StoredValue])],
                     thenIgnoringFailure trailing: (sql: String, parameters: [StoredValue])?) throws -> [[[StoredValue]]] {
        try connection.executeEach(statements, thenIgnoringFailure: trailing)
    }

    func executeEach(_ statements: [(sql: String, parameters: [StoredValue])],
                     thenIgnoringFailure trailing: (sql: String, parameters: [StoredValue])?,
                     thenReading following: [(sql: String, parameters: [StoredValue])]) throws
        -> (answers: [[[StoredValue]]], following: [[[StoredValue]]]?) {
        try connection.executeEach(statements, thenIgnoringFailure: trailing, thenReading: following)
    }

    func sendAhead(_ statements: [(sql: String, parameters: [StoredValue])]) throws -> Bool {
        try connection.sendAhead(statements)
    }

    func discardSentAhead() throws { try connection.discardSentAhead() }

    func copy(_ sql: String, rows: [UInt8]) throws { try connection.copy(sql, rows: rows) }

    func sendWithoutWaiting(_ sql: String) { connection.sendWithoutWaiting(sql) }

    var isConnected: Bool { connection.isConnected }

    func listen(_ channel: String) throws { try connection.listen(channel) }

    func receivedNotifications(readingSocket: Bool) throws -> [String] { try connection.receivedNotifications(readingSocket: readingSocket) }

    var socketDescriptor: Int32 { connection.socketDescriptor }

    func serverCode(of error: any Error) -> String? {
        if case .statementFailed(_, _, let state, _)? = error as? PostgresError { return state }
        return nil
    }

    var whileWaiting: (@Sendable () -> Void)? {
        get { connection.whileWaiting }
        set { connection.whileWaiting = newValue }
    }

    func close() { connection.close() }
}

extension Store.Location {
    /// A PostgreSQL database: every store on it, in any process on any machine, shares its
    /// graph (docs/PostgreSQL.md). Each store opens one connection.
    ///
    /// ```swift
    /// let store = try Store(.postgres(.init(host: "db.internal", database: "chat", user: "app", password: secret)),
    ///                       schema: ChatModelsSchema.self)
    /// ```
    public static func postgres(_ configuration: PostgresConnection.Configuration) -> Store.Location {
        .server(ServerLocation(description: configuration.description) { StoreConnection(try PostgresConnection(configuration)) })
    }
}

extension PostgresConnection.Configuration: CustomStringConvertible {
    /// `postgres://user@host:port/database`: never the password.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }
}
