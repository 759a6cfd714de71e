/// What a connection that listens for commit notifications received since it was last asked
/// (``StoreBackend/receivedCommits(readingSocket:)``), and the socket to wait on for more.
struct ReceivedCommits: Sendable {
    /// What the notifications say; nil when none came.
    var commits: NotifiedCommits.Waiting?
    /// How many notifications came.
    var count: Int
    /// The connection's socket, readable when the server sends more while it is idle; -1
    /// without one (it was lost: the store's next statement opens another).
    var socket: Int32

    /// Nothing received, and no socket to wait on.
    static let none = ReceivedCommits(commits: nil, count: 0, socket: -1)
}
