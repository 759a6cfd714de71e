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
/// one result, for the latest graph. The sequence ends as ``StoreObservation`` does.
public struct LiveResults<Value: Sendable>: AsyncSequence, Sendable {
    let contexts: AsyncStream<Context>
    let state: LiveQueryState<Value>
    let token: ObservationToken

    /// How many times the query ran: once for the first result, then once per relevant
    /// commit the consumer caught up with.
    public var evaluationCount: Int { state.evaluationCount }

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<Context>.Iterator
        let state: LiveQueryState<Value>
        let token: ObservationToken

        public mutating func next() async -> Value? {
            guard let context = await base.next() else { return nil }
            return state.evaluate(in: context)
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: contexts.makeAsyncIterator(), state: state, token: token)
    }
}

/// The shared state of a live query: what its last result depends on, and whether a graph
/// waits to be evaluated. The writer tests commits against it; the consumer evaluates.
final class LiveQueryState<Value: Sendable>: @unchecked Sendable {
    /// Runs the query in a graph: its result, and what the result depends on.
    typealias Evaluate = @Sendable (Context) -> (Value, QueryReach)

    private let run: Evaluate
    private let lock = NSLock()
    /// What the last result depends on; nil before the first.
    private var reach: QueryReach?
    /// A graph was handed to the consumer and not evaluated yet.
    private var isPending = true
    /// The consumer is evaluating: any commit now may postdate the graph it evaluates.
    private var isEvaluating = false
    private var evaluations = 0

    init(_ run: @escaping Evaluate) {
        self.run = run
    }

    var evaluationCount: Int { lock.withLock { evaluations } }

    /// Called for each commit, in order, by the writer: whether to hand its graph over.
    /// O(changed keys) for the reach test.
    func shouldDeliver(_ changes: ChangeSet) -> Bool {
        lock.withLock {
            if isPending || isEvaluating || reach.map({ $0.isAffected(by: changes) }) ?? true {
                isPending = true
                return true
            }
            return false
        }
    }

    /// Runs the query on a graph the consumer took.
    func evaluate(in context: Context) -> Value {
        lock.withLock {
            isPending = false
            isEvaluating = true
        }
        let (value, reach) = run(context)
        lock.withLock {
            self.reach = reach
            isEvaluating = false
            evaluations += 1
        }
        return value
    }
}

/// A query value handed to the consumer's side. Queries are immutable; their closures read
/// only the graph they are given (key paths, columns, nested templates).
private struct SendableQuery<Query>: @unchecked Sendable {
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
        let (stream, continuation) = AsyncStream.makeStream(of: Context.self, bufferingPolicy: .bufferingNewest(1))
        let state = LiveQueryState(run)
        let id = observers.add(receive: { commit in
            if state.shouldDeliver(commit.changeSet) { continuation.yield(commit.after) }
        }, finish: { continuation.finish() }, start: {
            // Under the registry's lock: no commit can slip between this graph and the first delivery.
            continuation.yield(context)
        })
        let registry = observers
        if let id { continuation.onTermination = { _ in registry.remove(id) } }
        return LiveResults(contexts: stream, state: state, token: ObservationToken(registry: observers, id: id))
    }
}
