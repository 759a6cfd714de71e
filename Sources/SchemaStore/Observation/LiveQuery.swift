import Observation
@_spi(SchemaStore) import SchemaRuntime

/// A live query for SwiftUI and anything else that uses Observation: ``value`` holds the
/// query's current result and changes, on the main actor, after each commit that changes it.
///
/// ```swift
/// struct ChatView: View {
///     @State private var messages: LiveQuery<[Message]>
///
///     init(store: Store, chat: Chat.ID) {
///         _messages = State(initialValue: store.liveQuery(Chat.query(chat).related(\.$messages).sorted(by: \.timestamp)))
///     }
///
///     var body: some View {
///         List(messages.value, id: \.id) { Text($0.text) }
///     }
/// }
/// ```
///
/// The query runs off the main actor (``LiveResults``); only the assignment of each new result
/// runs on it. It stops when the object is released, ``stop()`` is called, or the store closes.
@MainActor @Observable
public final class LiveQuery<Value: Sendable> {
    /// The query's result as of the latest commit that changed it.
    public private(set) var value: Value

    @ObservationIgnored private nonisolated(unsafe) var task: Task<Void, Never>?

    init(initial: Value, results: LiveResults<Value>) {
        value = initial
        task = Task.detached { [weak self] in
            for await value in results {
                guard let self else { return }
                await self.update(value)
            }
        }
    }

    private func update(_ value: Value) {
        self.value = value
    }

    /// Stops following the store; ``value`` keeps the last result.
    public func stop() {
        task?.cancel()
        task = nil
    }

    deinit {
        task?.cancel()
    }
}

extension Store {
    /// A ``LiveQuery`` of `query`, holding its result now.
    @MainActor
    public func liveQuery<Entity: EntityModelProtocol>(_ query: QueryList<Entity>) -> LiveQuery<[Entity]> {
        LiveQuery(initial: query.resolve(in: context), results: observe(query))
    }

    /// A ``LiveQuery`` of the entity `query` finds (nil while there is none).
    @MainActor
    public func liveQuery<Entity: EntityModelProtocol>(_ query: Query<Entity>) -> LiveQuery<Entity?> {
        LiveQuery(initial: query.resolve(in: context), results: observe(query))
    }
}
