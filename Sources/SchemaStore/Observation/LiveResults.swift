import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// A query's result, kept current: the result now, then a new result after each commit that
/// can change it (``Store/observe(_:)-(QueryList<Entity>)``).
///
/// The query runs on the consumer's side, when the consumer asks for the next result, never
/// on the writer's. A commit is tested against what the last result depends on
/// (``QueryReach``: the query's candidates, the entity a `related(_:)` list starts from, the
/// tables its nested relations read); commits that cannot change it do not re-run it.
/// Buffering: latest wins. If several commits arrive before the consumer asks again, it gets
/// one result, for the latest graph: a waiting live query holds no graph, only a flag, so it
/// never makes the writer copy what a snapshot would share. The sequence ends as
/// ``StoreObservation`` does. On a server, reading on demand, the query's reads run on a
/// thread of the store's own while the consumer's task waits suspended, unless the consumer
/// is isolated to an actor (``BlockingWork``).
public struct LiveResults<Value: Sendable>: AsyncSequence, Sendable {
    let signals: AsyncStream<Void>
    let current: @Sendable () -> Context?
    let state: LiveQueryState<Value>
    let token: ObservationToken
    /// Whether the query waits for a server (a store on one, reading on demand).
    let readsServer: Bool

    /// How many times the query ran: once for the first result, then once per relevant
    /// commit the consumer caught up with.
    public var evaluationCount: Int { state.evaluationCount }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Void>.Iterator
        let current: @Sendable () -> Context?
        let state: LiveQueryState<Value>
        let token: ObservationToken
        let readsServer: Bool

        public mutating func next() async -> Value? {
            guard await base.next() != nil else { return nil }
            let (state, current) = (state, current)
            guard readsServer else { return state.evaluate { current() } }
            return await BlockingWork.run { state.evaluate { current() } }
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: signals.makeAsyncIterator(), current: current, state: state, token: token, readsServer: readsServer)
    }
}

/// A live query's consumer side: how to run the query, and the registry that decides, from
/// what the last result depends on, which commits signal it (``LiveQueryIndex``).
final class LiveQueryState<Value: Sendable>: @unchecked Sendable {
    /// Runs the query in a graph: its result, and what the result depends on.
    typealias Evaluate = @Sendable (Context) -> (Value, QueryReach)

    private let run: Evaluate
    private let registry: ObserverRegistry
    /// The registration, nil when the store was closed.
    private let id: Int?
    private let lock = NSLock()
    private var evaluations = 0

    init(_ run: @escaping Evaluate, registry: ObserverRegistry, id: Int?) {
        self.run = run
        self.registry = registry
        self.id = id
    }

    var evaluationCount: Int { lock.withLock { evaluations } }

    /// Runs the query on the current graph, read after the registry marks the query as
    /// evaluating: a commit after that read signals it again. Nil when the store is gone.
    func evaluate(_ current: () -> Context?) -> Value? {
        if let id { registry.beginEvaluation(id) }
        guard let context = current() else { return nil }
        let (value, reach) = run(context)
        if let id { registry.endEvaluation(id, reach: reach) }
        lock.withLock { evaluations += 1 }
        return value
    }
}

/// A query value handed to the consumer's side. Queries are immutable; their closures read
/// only the graph they are given (key paths, columns, nested templates).
struct SendableQuery<Query>: @unchecked Sendable {
    let query: Query
}

extension Store {
    /// The result of `query`, now and after every commit that can change it.
    ///
    /// ```swift
    /// let recent = Chat.query("c1").related(\.$messages).sorted(by: \.timestamp.desc).limit(20)
    /// for await messages in store.observe(recent) {
    ///     render(messages)
    /// }
    /// ```
    public func observe<Entity: EntityModelProtocol>(_ query: QueryList<Entity>) -> LiveResults<[Entity]> {
        let sendable = SendableQuery(query: query)
        return observe { context in (sendable.query.resolve(in: context), sendable.query.reach(in: context)) }
    }

    /// The entity `query` finds (nil while there is none), now and after every commit that
    /// can change it.
    public func observe<Entity: EntityModelProtocol>(_ query: Query<Entity>) -> LiveResults<Entity?> {
        let sendable = SendableQuery(query: query)
        return observe { context in (sendable.query.resolve(in: context), sendable.query.reach(in: context)) }
    }

    private func observe<Value: Sendable>(_ run: @escaping LiveQueryState<Value>.Evaluate) -> LiveResults<Value> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        // The first result: pending from the start.
        continuation.yield()
        let id = observers.addLiveQuery(signal: { continuation.yield() }, finish: { continuation.finish() })
        // A store reading on demand learns of commits from the file's log.
        startObservingOnDemand()
        let state = LiveQueryState(run, registry: observers, id: id)
        let registry = observers
        if let id { continuation.onTermination = { _ in registry.remove(id) } }
        return LiveResults(signals: stream, current: { [weak self] in self?.context }, state: state,
                           token: ObservationToken(registry: observers, id: id), readsServer: readsOnDemand && waitsForAServer)
    }
}
