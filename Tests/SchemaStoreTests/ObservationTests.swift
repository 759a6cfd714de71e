import ChatModels
import DeterministicRandom
import Foundation
import SchemaRuntime
import SchemaStore
import Testing

/// Polls `condition` until it holds, for at most `seconds` (a loaded machine can starve a
/// consumer task for a while: tests that run the compiler hold threads of the shared pool for
/// a minute); returns whether it held.
///
/// The time counted is time this waiter could poll: a sleep of a millisecond that took much
/// longer means the pool ran no task at all meanwhile (tests blocking its threads, as
/// those waiting on a server do), the consumer included, so the deadline moves by as much.
nonisolated(nonsending) func eventually(seconds: Int = 10, _ condition: () -> Bool) async -> Bool {
    var deadline = ContinuousClock.now + .seconds(seconds)
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        let asleep = ContinuousClock.now
        try? await Task.sleep(nanoseconds: 1_000_000)
        let starved = ContinuousClock.now - asleep - .milliseconds(1)
        if starved > .milliseconds(250) { deadline += starved }
    }
    return true
}

/// ``eventually(_:)`` for synchronous tests: polls on this thread.
func eventually(_ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        Thread.sleep(forTimeInterval: 0.005)
    }
    return true
}

/// Change sets, change streams and live queries (docs/Observation.md).
@Suite struct ObservationTests {
    /// Collects what a stream yields, in a task of its own.
    final class Collector<Element: Sendable>: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [Element] = []
        private var finished = false
        private var task: Task<Void, Never>?

        init<Sequence: AsyncSequence & Sendable>(_ sequence: Sequence) where Sequence.Element == Element {
            task = Task {
                do {
                    for try await item in sequence { self.lock.withLock { self.items.append(item) } }
                } catch {}
                self.lock.withLock { self.finished = true }
            }
        }

        var values: [Element] { lock.withLock { items } }
        var isFinished: Bool { lock.withLock { finished } }
        func cancel() { task?.cancel() }

        /// Waits (up to `seconds`, for a loaded machine) until `condition` holds for what was collected.
        @discardableResult
        func wait(seconds: Int = 10, until condition: ([Element]) -> Bool) async -> Bool {
            await eventually(seconds: seconds) { condition(values) }
        }

        func waitUntilFinished() async -> Bool {
            await eventually { isFinished }
        }
    }

    /// Waits until the store has `count` observers (streams register when created and
    /// unregister when their iteration ends).
    func waitForObservers(_ store: Store, _ count: Int) async -> Bool {
        await eventually { store.observerCount == count }
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func everyCommitsChangesMatchTheReference(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let store = try Store(.memory, schema: ChatModelsSchema.self)
        let collector = Collector(store.changes())
        var expected: [ChangeSetReference] = []
        var history: [String] = []
        for _ in 0..<200 {
            let (name, step) = StoreModelBasedTests.randomStep(&random)
            history.append(name)
            let before = store.context
            _ = try? await store.write(step)
            let reference = try ChangeSetReference(before: before, after: store.context)
            if !reference.entities.isEmpty { expected.append(reference) }
        }
        #expect(await collector.wait { $0.count >= expected.count })
        let reported = collector.values
        #expect(reported.count == expected.count)
        for (index, (changes, reference)) in zip(reported, expected).enumerated() {
            try #require(ChangeSetReference(changes) == reference, "commit \(index): reported\n\(ChangeSetReference(changes))\nexpected\n\(reference)\nhistory: \(history.suffix(5))")
        }
        // Commit numbers increase, and each change set's graph is the one its commit left.
        #expect(zip(reported, reported.dropFirst()).allSatisfy { $0.commit < $1.commit })
        #expect(reported.last.map { try! StoreSnapshot($0.context) == StoreSnapshot(store.context) } ?? true)
    }

    @Test func aWriteThatChangesNothingReportsNothing() async throws {
        let store = try Store(.memory, schema: ChatModelsSchema.self)
        try await store.write { try User(id: "u", name: "Ann").save(to: &$0) }
        let collector = Collector(store.changes())
        try await store.write { _ in }
        try await store.write { try User(id: "u", name: "Ann").save(to: &$0) }
        _ = try? await store.write { context in
            try User(id: "v", name: "Bob").save(to: &context)
            throw StoreModelBasedTests.Planned()
        }
        try await store.write { try User(id: "u", name: "Anne").save(to: &$0) }
        #expect(await collector.wait { !$0.isEmpty })
        try await Task.sleep(nanoseconds: 20_000_000)
        #expect(collector.values.count == 1)
        #expect(collector.values.first?.changes(User.self)?.updated == ["u"])
    }

    @Test func cascadesAndUpsertsAreReported() async throws {
        let store = try Store(.memory, schema: ChatModelsSchema.self)
        try await store.write { context in
            try User(id: "u", name: "Ann", username: "ann").save(to: &context)
            try Chat(id: "c", messages: .relation([Message(id: "m1", text: "a", author: .id("u")), Message(id: "m2", text: "b", author: .id("u"))]))
                .save(to: &context)
        }
        let collector = Collector(store.changes())
        try await store.write { try Chat(id: "c").delete(from: &$0) }
        #expect(await collector.wait { $0.count == 1 })
        let changes = try #require(collector.values.first)
        #expect(changes.changes(Chat.self)?.deleted == ["c"])
        #expect(Set(changes.changes(Message.self)?.deleted ?? []) == ["m1", "m2"])
        #expect(changes.entityNames == ["Chat", "Message"])

        // `username` is unique with `onCollision: upsert`: the new user replaces the old one.
        try await store.write { try User(id: "v", name: "Vic", username: "ann").save(to: &$0) }
        #expect(await collector.wait { $0.count == 2 })
        let upsert = try #require(collector.values.last?.changes(User.self))
        #expect(upsert.inserted == ["v"] && upsert.deleted == ["u"])
    }

    @Test func aListWhoseOrderChangesIsRelinked() async throws {
        let store = try Store(.memory, schema: ChatModelsSchema.self)
        try await store.write { try Chat(id: "c", users: .relation([User(id: "a", name: "A"), User(id: "b", name: "B")])).save(to: &$0) }
        let collector = Collector(store.changes())
        // Removing Ann takes her out of the chat's list; saving her back appends her at its end.
        try await store.write { context in
            try User(id: "a", name: "A").delete(from: &context)
            try User(id: "a", name: "A", chats: .appending(ids: ["c"])).save(to: &context)
        }
        #expect(await collector.wait { !$0.isEmpty })
        let chats = try #require(collector.values.first?.changes(Chat.self))
        #expect(chats.relinked["c"] == ["users"])
        #expect(Chat.query("c", in: store.context).with(\.$users).resolve()?.users?.map(\.id) == ["b", "a"])
    }

    @Test func changesOfOneTypeAndOneEntity() async throws {
        let store = try Store(.memory, schema: ChatModelsSchema.self)
        let chats = Collector(store.changes(to: Chat.self))
        let ann = Collector(store.changes(of: User.self, id: "ann"))
        try await store.write { try User(id: "ann", name: "Ann").save(to: &$0) }
        try await store.write { try User(id: "bob", name: "Bob").save(to: &$0) }
        try await store.write { try Chat(id: "c", users: .ids(["ann"])).save(to: &$0) }
        try await store.write { try User(id: "ann", name: "Ann").delete(from: &$0) }
        #expect(await ann.wait { $0.count == 3 })
        let events = ann.values.map { event -> String in
            switch event {
            case .inserted(let user): "inserted \(user.name)"
            case .updated(let user): "updated \(user.name)"
            case .deleted(let id): "deleted \(id)"
            }
        }
        // The chat's save links Ann (its inverse, `chats`), which is a change to her.
        #expect(events == ["inserted Ann", "updated Ann", "deleted ann"])
        #expect(await chats.wait { $0.count == 2 })
        #expect(chats.values.map(\.commit) == [3, 4])
    }

    @Test func liveQueriesFollowTheirResultAndSkipCommitsOutsideIt() async throws {
        let store = try Store(.memory, schema: ChatModelsSchema.self)
        try await store.write { context in
            try User(id: "u", name: "Ann").save(to: &context)
            for chat in ["a", "b"] { try Chat(id: chat).save(to: &context) }
        }
        let query = Chat.query("a").related(\.$messages).sorted(by: \.timestamp)
        let live = store.observe(query)
        let results = Collector(live)
        #expect(await results.wait { $0.count == 1 })
        #expect(results.values.first?.isEmpty == true)
        for number in 0..<5 {
            try await store.write { try Message(id: "b\(number)", text: "x", timestamp: number, author: .id("u"), chat: .id("b")).save(to: &$0) }
        }
        try await store.write { try Message(id: "a1", text: "first", timestamp: 1, author: .id("u"), chat: .id("a")).save(to: &$0) }
        #expect(await results.wait { $0.last?.map(\.id) == ["a1"] })
        // The five writes to chat b did not re-run the query.
        #expect(live.evaluationCount <= 2)
        try await store.write { try Message(id: "a1", text: "edited", timestamp: 1, author: .id("u"), chat: .id("a")).save(to: &$0) }
        #expect(await results.wait { $0.last?.first?.text == "edited" })
        try await store.write { try Message(id: "a1", text: "edited", author: .id("u"), chat: .id("a")).delete(from: &$0) }
        #expect(await results.wait { $0.last?.isEmpty == true })
    }

    @Test func aRelatedListSeesALinkedEntityOnceItIsStored() async throws {
        let store = try Store(.memory, schema: ChatModelsSchema.self)
        try await store.write { try Chat(id: "c", users: .ids(["later"])).save(to: &$0) }
        let results = Collector(store.observe(Chat.query("c").related(\.$users)))
        #expect(await results.wait { $0.count == 1 })
        #expect(results.values.first?.isEmpty == true)
        try await store.write { try User(id: "later", name: "Late").save(to: &$0) }
        #expect(await results.wait { $0.last?.map(\.id) == ["later"] })
    }

    /// Relevance order depends on every message (how common each word is), not only on the
    /// ones in the result.
    @Test func aRankedQueryFollowsTheWholeTablesStatistics() async throws {
        let store = try Store(.memory, schema: ChatModelsSchema.self)
        try await store.write { context in
            try User(id: "u", name: "U").save(to: &context)
            try Message(id: "m1", text: "apple apple pear", author: .id("u"), chat: .id("a")).save(to: &context)
            try Message(id: "m2", text: "apple pear pear", author: .id("u"), chat: .id("a")).save(to: &context)
        }
        let query = Message.query(["m1", "m2"]).filter(.string(\.text, matches: "apple pear"))
        let results = Collector(store.observe(query))
        #expect(await results.wait { $0.count == 1 })
        // Many other messages with "apple" make it the common word: "pear" now ranks higher.
        try await store.write { context in
            for index in 0..<30 { try Message(id: "x\(index)", text: "apple", author: .id("u"), chat: .id("b")).save(to: &context) }
        }
        let expected = query.resolve(in: store.context).map(\.id)
        #expect(expected != results.values.first?.map(\.id), "the writes were meant to reorder the result")
        #expect(await results.wait { $0.last?.map(\.id) == expected })
    }

    /// Random writes; after each, every live query's latest result equals the query run again.
    @Test(arguments: [4, 5] as [UInt64])
    func liveQueriesEqualRerunningTheQuery(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let store = try Store(.memory, schema: ChatModelsSchema.self)
        let queries: [ContextFreeQueryList<Message>] = [
            Chat.query("c1").related(\.$messages).sorted(by: \.timestamp),
            Message.query().filter(\.timestamp < 500).sorted(by: \.timestamp).limit(5),
            Message.query(["m1", "m2", "m3"]),
            Message.query().filter(.string(\.text, matches: "hello")).limit(4),
        ]
        let collectors = queries.map { Collector(store.observe($0.with(\.$author))) }
        let single = Collector(store.observe(Message.query("m4").with(\.$chat)))
        func ids(_ messages: [Message]) -> String {
            messages.map { "\($0.id):\($0.text):\($0.author?.name ?? "-")" }.joined(separator: ",")
        }
        for _ in 0..<120 {
            let (_, step) = StoreModelBasedTests.randomStep(&random)
            _ = try? await store.write(step)
            let context = store.context
            for (query, collector) in zip(queries, collectors) {
                let expected = ids(query.with(\.$author).resolve(in: context))
                #expect(await collector.wait { $0.last.map(ids) == expected })
            }
            let message = Message.query("m4").with(\.$chat).resolve(in: context)
            #expect(await single.wait { ($0.last ?? nil).map { "\($0.text)\($0.chat?.title ?? "")" } == message.map { "\($0.text)\($0.chat?.title ?? "")" } })
        }
    }

    @Test func streamsEndWhenTheConsumerStopsOrTheStoreCloses() async throws {
        let store = try Store(.memory, schema: ChatModelsSchema.self)
        do {
            let changes = Collector(store.changes())
            let live = Collector(store.observe(User.query()))
            #expect(await waitForObservers(store, 2))
            #expect(await live.wait { $0.count == 1 })
            changes.cancel()
            live.cancel()
            #expect(await changes.waitUntilFinished())
            #expect(await live.waitUntilFinished())
        }
        #expect(await waitForObservers(store, 0))

        // Breaking out of the loop drops the iterator, which unregisters.
        try await store.write { try User(id: "u", name: "Ann").save(to: &$0) }
        for await users in store.observe(User.query()) {
            #expect(users.map(\.id) == ["u"])
            break
        }
        #expect(await waitForObservers(store, 0))

        let open = Collector(store.changes(to: User.self))
        #expect(await waitForObservers(store, 1))
        store.close()
        #expect(await open.waitUntilFinished())
        #expect(store.observerCount == 0)
        // Observing a closed store ends at once.
        var iterator = store.changes().makeAsyncIterator()
        #expect(await iterator.next() == nil)
    }

    @MainActor
    @Test func liveQueryObjectUpdatesOnTheMainActor() async throws {
        let store = try Store(.memory, schema: ChatModelsSchema.self)
        let users = store.liveQuery(User.query().sorted(by: \.name))
        #expect(users.value.isEmpty)
        try await store.write { try User(id: "u", name: "Ann").save(to: &$0) }
        #expect(await eventually { users.value.map(\.name) == ["Ann"] })
        users.stop()
        #expect(await waitForObservers(store, 0))
    }
}
