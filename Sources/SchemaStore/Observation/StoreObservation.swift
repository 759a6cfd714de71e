/// An asynchronous sequence of what a store reports: commits (``Store/changes()``), changes
/// to one entity (``Store/changes(of:id:)``).
///
/// It stays registered with the store while the sequence or an iterator of it exists: it ends
/// (and unregisters) when the iterating task is cancelled, when the consumer stops iterating
/// and drops it, or when the store closes. Buffering: every element is kept until the
/// consumer takes it, so none is lost and each is seen once, in commit order; a consumer that
/// never catches up holds the commits' graphs in memory.
public struct StoreObservation<Element: Sendable>: AsyncSequence, Sendable {
    let stream: AsyncStream<Element>
    let token: ObservationToken

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Element>.Iterator
        let token: ObservationToken

        public mutating func next() async -> Element? {
            await base.next()
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), token: token)
    }
}
