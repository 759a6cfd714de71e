import ChatModels
import ChatWorkloads
import DeterministicRandom
import Foundation
@_spi(SchemaStoreTesting) import SchemaStore
import SchemaRuntime
import Testing

/// What an on-demand store promises beside answering as a resident one does
/// (``OnDemandDifferentialTests``): it reads only what queries need, its snapshots never
/// change, and writes and observation still work (observation without loading the graph:
/// ``OnDemandObservationTests``).
@Suite struct OnDemandStoreTests {
    static func filled() throws -> URL {
        let url = try OnDemandDifferentialTests.temporaryFile()
        let store = try Store(.file(url), schema: ChatModelsSchema.self)
        try store.write { context in
            try User(id: "u1", name: "Ann", age: 30).save(to: &context)
            try User(id: "u2", name: "Bob", age: 40).save(to: &context)
            try Chat(id: "c1", title: "one", users: .ids(["u1", "u2"])).save(to: &context)
            try Message(id: "m1", text: "first", timestamp: 10, author: .id("u1"), chat: .id("c1")).save(to: &context)
            // A reply that the filters below exclude, reached through a nested relation.
            try Message(id: "m2", text: "second", timestamp: 0, author: .id("u2"), chat: .id("c1"), replyTo: .id("m1")).save(to: &context)
            for index in 3...50 {
                try Message(id: "m\(index)", text: "more \(index)", timestamp: index * 10, author: .id(index % 2 == 0 ? "u1" : "u2"),
                            chat: .id("c1")).save(to: &context)
            }
        }
        store.close()
        return url
    }

    static func onDemand(_ url: URL, readOnly: Bool = true) throws -> Store {
        try Store(.file(url), schema: ChatModelsSchema.self, options: .init(readOnly: readOnly, residency: .onDemand))
    }

    /// A write reads what it touches: saving a message into a chat, editing it and deleting
    /// it run as many statements in a store of 2 chats as in one of 40 with 20 times the
    /// messages and users, and the message's chat holds 25 messages in both. A small write
    /// never asks a table whether it is empty (`OnDemandWrite.emptinessWorthAsking`), and
    /// reads an entity's row and its to-one links together.
    @Test func aWriteReadsWhatItTouchesWhateverTheStoresSize() throws {
        var reads: [Int] = []
        func statements(chats: Int) throws -> [Int] {
            let url = try OnDemandDifferentialTests.temporaryFile()
            defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
            let store = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(residency: .onDemand))
            try store.write { context in
                for chat in 0..<chats {
                    try User(id: "u\(chat)", name: "n\(chat)").save(to: &context)
                    try Chat(id: "c\(chat)", users: .ids(["u\(chat)"]), messages: .relation((0..<25).map {
                        Message(id: "m\(chat)-\($0)", text: "t", author: .id("u\(chat)"))
                    })).save(to: &context)
                }
            }
            var counts: [Int] = []
            func counted(_ body: (inout Context) throws -> Void) throws {
                let before = store.onDemandStatistics
                try store.write(body)
                let after = store.onDemandStatistics
                counts.append(after.writeStatements - before.writeStatements)
                reads.append(after.writeReads - before.writeReads)
            }
            try counted { try Message(id: "new", text: "hi", author: .id("u0"), chat: .id("c0")).save(to: &$0) }
            try counted { context in
                var message = try #require(context.find(Message.self, id: "new"))
                message.text = "edited"
                try message.save(to: &context)
            }
            try counted { try Message.delete(id: "new", from: &$0) }
            #expect(Chat.query("c0", in: store.context).related(\.$messages).count() == 25)
            #expect(store.readsOnDemand && store.onDemandStatistics.writes == 4)
            return counts
        }
        let small = try statements(chats: 2), large = try statements(chats: 40)
        #expect(small == large && small.allSatisfy { $0 > 0 && $0 < 20 }, "\(small) \(large)")
        // Saving the message reads its row and its links by key: 5 statements. Asking each
        // table first whether it is empty (worth it only for big writes) made it 8.
        #expect(small.first == 5, "\(small)")
        // Its row and its to-one links go together: one round trip to a server, not five.
        #expect(reads.first == 1 && reads.count == 6 && reads[...2] == reads[3...], "\(reads)")
    }

    /// A write's context returned by its closure outlives the write: it reads the file as
    /// committed through a snapshot of its own, never through the writer's connection, which
    /// later writes use.
    @Test func aWritesContextReadsAfterTheWrite() throws {
        let url = try Self.filled()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let store = try Self.onDemand(url, readOnly: false)
        let written = try store.write { context in
            try Message(id: "m99", text: "kept", timestamp: 990, author: .id("u1"), chat: .id("c1")).save(to: &context)
            return context
        }
        try store.write { try Message(id: "m100", text: "later", author: .id("u2"), chat: .id("c1")).save(to: &$0) }
        #expect(Message.query("m99", in: written).with(\.$author).resolve()?.author?.name == "Ann")
        let newest = Chat.query("c1", in: written).related(\.$messages).sorted(by: \.timestamp.desc).limit(2).resolve().map(\.id)
        #expect(newest == ["m99", "m50"])
        #expect(Message.query(in: store.context).count() == 52)
    }

    @Test func rowsExcludedByAFilterAreStillReadWhenAQueryFollowsALinkToThem() throws {
        let url = try Self.filled()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let store = try Self.onDemand(url)
        let related = Chat.query("c1", in: store.context).related(\.$messages).filter(\.timestamp == 10).with(\.$replies).resolve()
        #expect(related.map(\.id) == ["m1"])
        #expect(related.first?.replies?.map(\.id) == ["m2"])
        let listed = Message.query(["m2", "m1"], in: store.context).filter(\.timestamp == 10).with(\.$replies).resolve()
        #expect(listed.first?.replies?.map(\.id) == ["m2"])
        let all = Message.query(in: store.context).filter(\.timestamp == 10).with(\.$replies).resolve()
        #expect(all.first?.replies?.map(\.id) == ["m2"])
    }

    @Test func aPushedDownQueryReadsOnlyItsRows() throws {
        let url = try Self.filled()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let store = try Self.onDemand(url)
        #expect(store.readsOnDemand)
        let context = store.context
        let newest = Message.query(in: context).sorted(by: \.timestamp.desc).limit(3).with(\.$author).resolve()
        #expect(newest.map(\.id) == ["m50", "m49", "m48"])
        #expect(newest.map { $0.author?.name } == ["Ann", "Bob", "Ann"])
        let screen = Chat.query("c1", in: context).related(\.$messages).sorted(by: \.timestamp.desc).limit(2).resolve()
        #expect(screen.map(\.id) == ["m50", "m49"])
        #expect(Message.query(in: context).filter(\.timestamp >= 100 && \.timestamp < 200).count() == 10)
        #expect(Message.query(in: context).sorted(by: \.timestamp).first().resolve()?.id == "m2")
        let statistics = store.onDemandStatistics
        #expect(statistics.wholeGraphReads == 0, "\(statistics)")
        #expect(statistics.counts == 1)
        let explained = try #require(store.explainSQL(Message.query(in: context).filter(\.timestamp > 100).sorted(by: \.timestamp).limit(5)))
        #expect(explained.sql.contains("WHERE \"timestamp\" > ?"), "\(explained.sql)")
        #expect(explained.sql.contains("LIMIT ?"), "\(explained.sql)")
        #expect(!explained.plan.isEmpty)
        // Descending sorts are pushed down too (their key paths go through `.desc`), also in
        // a related list's join.
        let screenSQL = try #require(store.explainSQL(Chat.query("c1", in: context).related(\.$messages).sorted(by: \.timestamp.desc).limit(2)))
        #expect(screenSQL.sql.contains("ORDER BY \"Message\".\"timestamp\" DESC"), "\(screenSQL.sql)")
        #expect(screenSQL.sql.contains("JOIN \"Chat.messages\""), "\(screenSQL.sql)")
    }

    @Test func aSnapshotNeverChangesAndTheNextOneSeesNewCommits() throws {
        let url = try Self.filled()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let reader = try Self.onDemand(url)
        let writer = try Store(.file(url), schema: ChatModelsSchema.self)
        let before = reader.context
        #expect(Message.query(in: before).count() == 50)
        try writer.write { context in
            try Message(id: "m51", text: "new", timestamp: 1, author: .id("u1"), chat: .id("c1")).save(to: &context)
            try Message(id: "m1", text: "").delete(from: &context)
        }
        #expect(Message.query(in: before).count() == 50)
        #expect(Message.query("m1", in: before).resolve() != nil)
        #expect(Chat.query("c1", in: before).related(\.$messages).count() == 50)
        let after = reader.context
        #expect(Message.query(in: after).count() == 50)
        #expect(Message.query("m1", in: after).resolve() == nil)
        #expect(Message.query("m51", in: after).with(\.$author).resolve()?.author?.name == "Ann")
    }

    @Test func writesAndObservationLoadOnlyWhatTheyTouch() async throws {
        let url = try Self.filled()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let store = try Self.onDemand(url, readOnly: false)
        #expect(store.readsOnDemand)
        try await store.write { context in
            try Message(id: "m99", text: "written", timestamp: 5, author: .id("u2"), chat: .id("c1")).save(to: &context)
        }
        #expect(store.readsOnDemand)
        #expect(Message.query("m99", in: store.context).with(\.$author).resolve()?.author?.name == "Bob")
        #expect(Message.query(in: store.context).count() == 51)
        #expect(Chat.query("c1", in: store.context).related(\.$messages).resolve().map(\.id).last == "m99")
        #expect(store.onDemandStatistics.wholeGraphReads == 0)

        let observed = try Self.onDemand(url)
        let changes = observed.changes()
        #expect(observed.readsOnDemand)
        try await store.write { context in try Message(id: "m2", text: "").delete(from: &context) }
        var iterator = changes.makeAsyncIterator()
        let change = await iterator.next()
        #expect(change?.changes(Message.self)?.deleted == ["m2"])
        #expect(Message.query("m2", in: observed.context).resolve() == nil)
        #expect(observed.readsOnDemand)
    }

    /// A thread commits numbered writes (message m<n> and the counter chat's title n, in one
    /// transaction) while this one takes contexts: each shows whole writes only, and keeps
    /// showing the same ones however many commits land while it is read.
    @Test func snapshotsStayWholeAndStillWhileAnotherThreadWrites() throws {
        let url = try OnDemandDifferentialTests.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let writer = try Store(.file(url), schema: ChatModelsSchema.self)
        try writer.write { try User(id: "writer", name: "Writer").save(to: &$0) }
        let reader = try Self.onDemand(url)
        let finished = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            for number in 0..<300 {
                try? writer.write { context in
                    try Chat(id: "counter", title: "\(number)").save(to: &context)
                    try Message(id: "m\(number)", text: "write", timestamp: number, author: .id("writer"), chat: .id("counter")).save(to: &context)
                }
            }
            finished.signal()
        }
        var states = Set<Int>()
        var done = false
        while !done {
            done = finished.wait(timeout: .now()) == .success
            let context = reader.context
            let count = Message.query(in: context).count()
            let title = Chat.query("counter", in: context).resolve()?.title
            #expect(count == 0 ? title == nil : title == "\(count - 1)", "a snapshot shows part of a write")
            Thread.sleep(forTimeInterval: 0.002)
            // Later commits never reach a snapshot taken before them.
            #expect(Message.query(in: context).count() == count)
            #expect(Chat.query("counter", in: context).related(\.$messages).count() == count)
            states.insert(count)
        }
        #expect(Message.query(in: reader.context).count() == 300)
        #expect(states.count > 3, "the reader saw only \(states.count) states")
    }
}

extension OnDemandStoreTests {
    @Test func textConditionsAreDecidedInSQLAsInSwift() throws {
        let url = try Self.filled()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let store = try Self.onDemand(url)
        let context = store.context
        let query = Message.query(in: context).filter(.string(\.text, contains: "MORE 1") || .string(\.text, hasPrefix: "FIR"))
            .sorted(by: \.timestamp).limit(4)
        #expect(query.resolve().map(\.id) == ["m1", "m10", "m11", "m12"])
        let explained = try #require(store.explainSQL(query))
        #expect(explained.sql.contains("schemagen_text("), "\(explained.sql)")
        #expect(explained.sql.contains("LIMIT"), "text conditions are exact: SQL limits")
        #expect(Message.query(in: context).filter(.string(\.text, hasSuffix: "ND", caseSensitive: true)).count() == 0)
        #expect(Message.query(in: context).filter(.string(\.text, hasSuffix: "nd", caseSensitive: true)).count() == 1)
        #expect(store.onDemandStatistics.counts == 2)
    }
}

extension OnDemandStoreTests {
    static func walBytes(_ url: URL) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: url.path + "-wal")[.size] as? Int) ?? 0
    }

    /// Writes about 12 MB of chats (titles of 4,000 characters, which no index reads) in 30 commits.
    static func writeMegabytes(_ store: Store, round: Int) throws {
        let text = String(repeating: "x", count: 4000)
        for commit in 0..<30 {
            try store.write { context in
                for index in 0..<100 {
                    try Chat(id: "w\(round)-\(commit)-\(index)", title: text).save(to: &context)
                }
            }
        }
    }

    /// A snapshot lives while a context holds it: then SQLite cannot checkpoint the log past
    /// it and the log grows with every commit. Once no context holds it, the log is
    /// checkpointed and reused as usual, however long the store stays open.
    @Test func onlyAHeldContextKeepsTheLogFromBeingCheckpointed() throws {
        let url = try Self.filled()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let writer = try Store(.file(url), schema: ChatModelsSchema.self)
        let reader = try Self.onDemand(url)
        #expect(Chat.query(in: reader.context).count() == 1)   // a snapshot, taken and let go
        try Self.writeMegabytes(writer, round: 0)
        let unpinned = Self.walBytes(url)
        var held: Context? = reader.context
        #expect(Chat.query(in: held!).count() == 3001)
        try Self.writeMegabytes(writer, round: 1)
        try Self.writeMegabytes(writer, round: 2)
        let pinned = Self.walBytes(url)
        #expect(Chat.query(in: held!).count() == 3001, "the held snapshot never changes")
        held = nil
        #expect(unpinned < 8_000_000, "the log grew to \(unpinned) bytes with no context held")
        #expect(pinned > 20_000_000, "the log grew to only \(pinned) bytes under a held snapshot")
        #expect(Chat.query(in: reader.context).count() == 9001)
    }
}

/// Queries on one snapshot reuse the rows and links earlier ones read (its cache), and answer
/// as a resident store does whatever those read: linked rows an earlier filter left out are
/// read when a later query needs them.
@Suite struct OnDemandSnapshotCacheTests {
    /// A store writing on demand at `url`, holding three users and chat "c" of 30 messages.
    static func chatOfThirtyMessages(at url: URL) throws -> Store {
        let writer = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(residency: .onDemand))
        try writer.write { context in
            for user in 0..<3 { try User(id: "u\(user)", name: "User \(user)").save(to: &context) }
            try Chat(id: "c", title: "C", messages: .relation((0..<30).map { index in
                Message(id: "m\(index)", text: "text \(index)", timestamp: index, author: .id("u\(index % 3)"))
            })).save(to: &context)
        }
        return writer
    }

    @Test(arguments: [50_000, 0])
    func queriesOnOneSnapshotAnswerAsResidentWhatEverEarlierOnesRead(cachedRows: Int) throws {
        let url = try OnDemandDifferentialTests.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try Self.chatOfThirtyMessages(at: url).close()
        let reader = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(readOnly: true, residency: .onDemand, cachedRowsPerSnapshot: cachedRows))
        let resident = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(readOnly: true, residency: .resident))
        // The reference: a file opens on demand unless told otherwise.
        #expect(!resident.readsOnDemand)
        let context = reader.context
        let queries: [(String, @Sendable (Context) -> String)] = [
            // A closure SQL cannot say: the chat's links, then the rows the rest of the filter keeps.
            ("newest, closure", { "\(Chat.query("c", in: $0).related(\.$messages).filter(\.timestamp > 20).filter { $0.text.count > 6 }.resolve().map(\.id))" }),
            ("oldest, closure", { "\(Chat.query("c", in: $0).related(\.$messages).filter(\.timestamp < 10).filter { $0.text.count > 3 }.resolve().map(\.id))" }),
            ("newest", { "\(Chat.query("c", in: $0).related(\.$messages).filter(\.timestamp > 20).resolve().map(\.id))" }),
            ("oldest", { "\(Chat.query("c", in: $0).related(\.$messages).filter(\.timestamp < 10).resolve().map(\.id))" }),
            ("all", { "\(Chat.query("c", in: $0).related(\.$messages).sorted(by: \.text).resolve().map(\.id))" }),
            ("nested", { "\(Chat.query(["c"], in: $0).with(\.$messages) { $0.with(\.$author) }.resolve())" }),
            ("authors", { "\(User.query(in: $0).sorted(by: \.name).resolve().map(\.id))" }),
        ]
        for (name, answer) in queries {
            #expect(answer(context) == answer(resident.context), "\(name)")
        }
        // The nested query again: only the chat is read again (its id names it), when the snapshot keeps rows.
        let before = reader.onDemandStatistics.statements
        #expect(queries[5].1(context) == queries[5].1(resident.context))
        let statements = reader.onDemandStatistics.statements - before
        #expect(cachedRows > 0 ? statements == 1 : statements > 1, "\(statements) statements")
    }

    /// A new snapshot of a file that did not change starts from the rows the last one read;
    /// after a commit, by this store or another, the next snapshot reads the file again.
    @Test func aNewSnapshotOfTheSameCommitStartsFromTheRowsTheLastOneRead() throws {
        let url = try OnDemandDifferentialTests.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let writer = try Self.chatOfThirtyMessages(at: url)
        let nested: @Sendable (Context) -> String = { "\(Chat.query(["c"], in: $0).with(\.$messages) { $0.with(\.$author) }.resolve())" }
        func resident() throws -> String {
            let store = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(readOnly: true, residency: .resident))
            defer { store.close() }
            return nested(store.context)
        }
        func statements(_ store: Store, _ body: () throws -> Void) rethrows -> Int {
            let before = store.onDemandStatistics.statements
            try body()
            return store.onDemandStatistics.statements - before
        }
        for reader in [writer, try Store(.file(url), schema: ChatModelsSchema.self, options: .init(readOnly: true, residency: .onDemand))] {
            #expect(try reader.read(nested) == resident())
            // Only the chat its id names is read again.
            let expected = try resident()
            var again = ""
            #expect(try statements(reader) { again = try reader.read(nested) } == 1)
            #expect(again == expected)
            // A commit of this store, then of another: the next snapshot reads what changed.
            try writer.write { context in
                try Message(id: "m1", text: "changed", timestamp: 1, author: .id("u1"), chat: .id("c")).save(to: &context)
            }
            let changed = try reader.read(nested)
            let changedExpected = try resident()
            #expect(changed.contains("changed") && changed == changedExpected)
            let other = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(residency: .onDemand))
            try other.write { context in try User(id: "u1", name: "Renamed \(reader === writer)").save(to: &context) }
            other.close()
            let renamed = try reader.read(nested)
            let renamedExpected = try resident()
            #expect(renamed.contains("Renamed") && renamed == renamedExpected)
            #expect(try statements(reader) { _ = try reader.read(nested) } == 1)
            // Also from a snapshot still held, of the same commit.
            try writer.write { context in try User(id: "u2", name: "Held \(reader === writer)").save(to: &context) }
            let held = reader.context
            #expect(nested(held).contains("Held"))
            #expect(try statements(reader) { _ = try reader.read(nested) } == 1)
            withExtendedLifetime(held) {}
        }
    }

    /// A `count()` SQL answers is asked of SQL once per commit: again on the snapshot, or on
    /// a new one of the same commit, it is the count it was; after a commit, counted anew.
    @Test func aCountIsCountedOncePerCommit() throws {
        let url = try OnDemandDifferentialTests.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let store = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(residency: .onDemand))
        func save(_ range: Range<Int>) throws {
            try store.write { context in
                try User(id: "u", name: "U").save(to: &context)
                try Chat(id: "c", title: "C").save(to: &context)
                for index in range { try Message(id: "m\(index)", text: "text \(index)", timestamp: index, author: .id("u"), chat: .id("c")).save(to: &context) }
            }
        }
        try save(0..<20)
        let recent: @Sendable (Context) -> Int = { Message.query(in: $0).filter(\.timestamp >= 16).count() }
        let older: @Sendable (Context) -> Int = { Message.query(in: $0).filter(\.timestamp < 10).count() }
        /// The answers of `body` in a `read`, and how many counts SQL ran for them.
        func counted(_ body: @escaping @Sendable (Context) -> [Int]) throws -> (answers: [Int], counts: Int) {
            let before = store.onDemandStatistics.counts
            let answers = try store.read(body)
            return (answers, store.onDemandStatistics.counts - before)
        }
        let first = try counted { [recent($0), recent($0), older($0), $0.count(of: Message.self), $0.count(of: User.self)] }
        #expect(first.answers == [4, 4, 10, 20, 1] && first.counts == 2)
        let again = try counted { [recent($0), older($0), $0.count(of: Message.self)] }
        #expect(again.answers == [4, 10, 20] && again.counts == 0)
        try save(20..<25)
        let later = try counted { [recent($0), older($0), recent($0), $0.count(of: Message.self)] }
        #expect(later.answers == [9, 10, 9, 25] && later.counts == 2)
    }
}

extension OnDemandStoreTests {
    /// A closed store reading on demand reads nothing more (its database may be gone: a
    /// live query evaluated after its close once stopped the process, reading a server
    /// that was stopped): its context is the snapshot contexts taken before still hold,
    /// else an empty graph, and `read` throws.
    @Test func aClosedStoreReadsNothingMore() throws {
        let url = try Self.filled()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let store = try Self.onDemand(url)
        var held: Context? = store.context
        #expect(User.query(in: held!).resolve().count == 2)
        store.close()
        // The file goes: a new snapshot could not be read.
        try FileManager.default.removeItem(at: url)
        #expect(User.query(in: store.context).resolve().map(\.id).sorted() == ["u1", "u2"], "the snapshot held was not kept")
        held = nil
        #expect(User.query(in: store.context).resolve().isEmpty)
        #expect(throws: StoreError.self) { try store.read { User.query(in: $0).resolve() } }
        _ = held
    }
}

/// Ranked full-text `matches` on demand: candidates and BM25 statistics come from postings a
/// writer keeps in SQL, and the ranking equals a resident store's, ties included, through
/// inserts, updates and deletes, a few or over a thousand in one write.
@Suite struct OnDemandFullTextTests {
    @Test(arguments: [1, 2] as [UInt64])
    func rankedMatchesEqualAResidentStores(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let url = try OnDemandDifferentialTests.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        // Rows written before the postings exist are indexed when a writer opens on demand.
        let early = try Store(.file(url), schema: ChatModelsSchema.self)
        try early.write(RankedMatchWorkload.start(&random))
        early.close()
        let writer = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(residency: .onDemand))
        let reader = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(readOnly: true, residency: .onDemand))
        for round in 0..<6 {
            // Rounds 2 and 4 rewrite or delete over a thousand messages in one write.
            try writer.write(round % 2 == 0 && round > 0 ? RankedMatchWorkload.round(&random, edits: 1_300, ids: 1_500) : RankedMatchWorkload.round(&random))
            let resident = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(readOnly: true, residency: .resident))
            // The reference: a file opens on demand unless told otherwise.
            #expect(!resident.readsOnDemand)
            let onDemand = reader.context
            for _ in 0..<8 {
                let (query, lists) = RankedMatchWorkload.queries(&random)
                for list in lists {
                    let expected = list.resolve(in: resident.context).map(\.id)
                    #expect(list.resolve(in: onDemand).map(\.id) == expected, "round \(round): \(query)")
                }
            }
            resident.close()
        }
        let statistics = reader.onDemandStatistics
        #expect(statistics.fullTextReads > 0, "\(statistics)")
        #expect(statistics.wholeGraphReads == 0, "\(statistics)")
    }
}
