#if canImport(Combine)
import Combine
import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// Combine publishers of the observations, for code built on Combine (SwiftUI's
/// `onReceive`, existing pipelines). Each subscriber gets its own observation, started at its
/// first demand and ended when it cancels. A value that arrives while the subscriber has no
/// demand left is dropped (as a `PassthroughSubject` does); subscribe with unlimited demand
/// (`sink`, `assign`) to see them all.
extension Store {
    /// Every commit (``changes()``).
    public func changesPublisher() -> AnyPublisher<StoreChanges, Never> {
        ObservationPublisher { [weak self] in self?.changes() }.eraseToAnyPublisher()
    }

    /// The commits that change an entity of `type` (``changes(to:)``).
    public func changesPublisher<Entity: EntityModelProtocol>(to type: Entity.Type) -> AnyPublisher<StoreChanges, Never> {
        ObservationPublisher { [weak self] in self?.changes(to: type) }.eraseToAnyPublisher()
    }

    /// The result of `query`, now and after every commit that can change it (``observe(_:)-(QueryList<Entity>)``).
    public func publisher<Entity: EntityModelProtocol>(for query: QueryList<Entity>) -> AnyPublisher<[Entity], Never> {
        let sendable = SendableQuery(query: query)
        return ObservationPublisher { [weak self] in self?.observe(sendable.query) }.eraseToAnyPublisher()
    }

    /// The result of a query made without a context, now and after every commit that can change it.
    public func publisher<Entity: EntityModelProtocol>(for query: ContextFreeQueryList<Entity>) -> AnyPublisher<[Entity], Never> {
        publisher(for: query.query)
    }
}

/// Publishes what an observation yields, one observation per subscriber.
private struct ObservationPublisher<Sequence: AsyncSequence & Sendable>: Publisher where Sequence.Element: Sendable {
    typealias Output = Sequence.Element
    typealias Failure = Never

    let makeSequence: @Sendable () -> Sequence?

    func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        subscriber.receive(subscription: ObservationSubscription(subscriber: subscriber, makeSequence: makeSequence))
    }
}

/// Iterates the observation in a task from the first demand until cancelled. The subscriber
/// is held as two closures, so the task's class is generic over the sequence only.
private final class ObservationSubscription<Sequence: AsyncSequence & Sendable>: Subscription, @unchecked Sendable
where Sequence.Element: Sendable {
    private struct Downstream {
        let receive: (Sequence.Element) -> Subscribers.Demand
        let complete: () -> Void
    }

    private let lock = NSLock()
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var task: Task<Void, Never>?
    private let makeSequence: @Sendable () -> Sequence?

    init<S: Subscriber>(subscriber: S, makeSequence: @escaping @Sendable () -> Sequence?) where S.Input == Sequence.Element, S.Failure == Never {
        downstream = Downstream(receive: { subscriber.receive($0) }, complete: { subscriber.receive(completion: .finished) })
        self.makeSequence = makeSequence
    }

    func request(_ demand: Subscribers.Demand) {
        lock.withLock {
            self.demand += demand
            guard task == nil, downstream != nil else { return }
            task = Task { [weak self] in await self?.run() }
        }
    }

    private func run() async {
        if let sequence = makeSequence() {
            do {
                for try await element in sequence {
                    if Task.isCancelled { return }
                    send(element)
                }
            } catch {}
        }
        let finished: Downstream? = lock.withLock {
            defer { downstream = nil }
            return downstream
        }
        finished?.complete()
    }

    private func send(_ element: Sequence.Element) {
        let target: Downstream? = lock.withLock {
            guard let downstream, demand > 0 else { return nil }
            demand -= 1
            return downstream
        }
        guard let target else { return }
        let more = target.receive(element)
        lock.withLock { demand += more }
    }

    func cancel() {
        let running: Task<Void, Never>? = lock.withLock {
            downstream = nil
            defer { task = nil }
            return task
        }
        running?.cancel()
    }
}
#endif
