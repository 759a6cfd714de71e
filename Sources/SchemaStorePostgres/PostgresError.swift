/// A failure talking to PostgreSQL. Messages name the host and the database, never a
/// password or a full connection string.
public enum PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The server could not be reached or refused the connection (down, wrong port, wrong
    /// password, unknown database), or runs a version older than PostgreSQL 13.
    case cannotConnect(host: String, database: String, reason: String)
    /// A statement failed on the server; `state` is its SQLSTATE code.
    case statementFailed(host: String, database: String, state: String, reason: String)
    /// The connection was lost (the server restarted, the network dropped it).
    case connectionLost(host: String, database: String, reason: String)

    public var description: String {
        switch self {
        case .cannotConnect(let host, let database, let reason):
            "cannot connect to PostgreSQL database '\(database)' on \(host): \(reason)"
        case .statementFailed(let host, let database, let state, let reason):
            "a statement failed on PostgreSQL database '\(database)' on \(host) (SQLSTATE \(state)): \(reason)"
        case .connectionLost(let host, let database, let reason):
            "lost the connection to PostgreSQL database '\(database)' on \(host): \(reason)"
        }
    }
}
