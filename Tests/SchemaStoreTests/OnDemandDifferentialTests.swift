import ChatModels
import DeterministicRandom
import Foundation
@_spi(SchemaStoreTesting) import SchemaStore
import SchemaRuntime
import Testing

/// An on-demand store and a resident one, fed the same random writes (the model-based
/// store test's), answer random queries alike: every answer and every order, ties included,
/// after every few writes, over filters SQL answers exactly, filters it only narrows,
/// sorts it pushes down, limits, offsets, counts, aggregates, grouping, pages, relation
/// filters and nested queries.
@Suite struct OnDemandDifferentialTests {
    typealias Answer = @Sendable (Context) -> String

    /// A random query over the chat schema, by name, and how to read its answer.
    static func randomQuery(_ random: inout SplitMix64) -> (name: String, answer: Answer) {
        // 0 is frequent: the default timestamp and age of fragments; boundaries must be hit.
        let n = Bool.random(using: &random) ? 0 : Int.random(in: 0..<1000, using: &random)
        let k = Int.random(in: 0..<8, using: &random)
        let o = Int.random(in: 0..<4, using: &random)
        let word = ["hello", "bye", "reply", "with", "h", "", "HeLLo 1", "E 9"][Int.random(in: 0..<8, using: &random)]
        let user = "u\(Int.random(in: 0..<6, using: &random))"
        let chat = "c\(Int.random(in: 0..<4, using: &random))"
        let message = "m\(Int.random(in: 0..<30, using: &random))"
        let age = Bool.random(using: &random) ? 0 : Int.random(in: 0..<90, using: &random)
        switch Int.random(in: 0..<27, using: &random) {
        case 26:
            return ("save times: messages, chat \(chat) with what it reaches", { c in
                let reached = Chat.query(chat, in: c).resolve()?.updatedAt(in: c, reachingThroughStoredLinks: true)
                return "\(String(describing: Message.updatedAt(in: c))) \(String(describing: reached))"
            })
        case 24:
            return ("users age < <= == != \(age)", { c in
                let q = User.query(in: c)
                return "\(q.filter(\.age < age).count()) \(q.filter(\.age <= age).count()) \(q.filter(\.age == age).resolve().map(\.id)) \(q.filter(\.age != age || \.name > "n\(age)").count())"
            })
        case 25:
            return ("users age > >= \(age), name order", { c in
                "\(User.query(in: c).filter(\.age > age || (\.age >= age && \.name >= "n")).sorted(by: \.name).resolve().map(\.id))"
            })
        case 0:
            return ("messages timestamp > \(n) by timestamp limit \(k) offset \(o)", { c in
                "\(Message.query(in: c).filter(\.timestamp > n).sorted(by: \.timestamp).limit(k, offset: o).resolve())"
            })
        case 1:
            return ("messages by text desc, timestamp limit \(k)", { c in
                "\(Message.query(in: c).sorted(by: \.text.desc, \.timestamp).limit(k).resolve().map(\.id))"
            })
        case 2:
            return ("messages text < \(word) || timestamp <= \(n)", { c in
                let texts = Message.query(in: c).filter(.string(\.text, contains: word) || .string(\.text, hasSuffix: word, caseSensitive: true))
                return "\(Message.query(in: c).filter(\.text < word || \.timestamp <= n).resolve().map(\.id)) \(texts.count()) \(texts.resolve().map(\.id))"
            })
        case 3:
            return ("messages !(timestamp >= \(n)) && editedAt == nil", { c in
                "\(Message.query(in: c).filter(!(\.timestamp >= n) && \.editedAt == nil).resolve().map(\.id))"
            })
        case 4:
            return ("count messages timestamp in \(n)...", { c in
                "\(Message.query(in: c).filter(\.timestamp >= n && \.timestamp < n + 300).count())"
            })
        case 5:
            return ("messages contains \(word) (narrowed in Swift)", { c in
                "\(Message.query(in: c).filter(.string(\.text, contains: word)).sorted(by: \.timestamp.desc).limit(k).resolve().map(\.id))"
            })
        case 6:
            return ("messages matches \(word) (ranked)", { c in
                "\(Message.query(in: c).filter(.string(\.text, matches: word)).resolve().map(\.id))"
            })
        case 7:
            return ("messages with author and chat users, limit \(k)", { c in
                "\(Message.query(in: c).sorted(by: \.timestamp.desc).limit(k).with(\.$author).with(\.$chat) { $0.with(\.$users) }.resolve())"
            })
        case 8:
            return ("messages with replies filtered, replyTo ids", { c in
                "\(Message.query(in: c).with(\.$replies) { $0.filter(\.timestamp > n).sorted(by: \.text) }.id(\.$replyTo).id(\.$viewedBy).resolve())"
            })
        case 9:
            return ("chats any message timestamp > \(n)", { c in
                "\(Chat.query(in: c).filter(.any(\.$messages, where: \.timestamp > n)).resolve().map(\.id))"
            })
        case 10:
            return ("chats all messages contain \(word), linkCount", { c in
                "\(Chat.query(in: c).filter(.all(\.$messages, where: .string(\.text, contains: word)) || .linkCount(\.$users, 2...)).resolve().map(\.id))"
            })
        case 11:
            return ("users by age, status == away, offset \(o)", { c in
                "\(User.query(in: c).filter(\.status == .away || \.age > n % 90).sorted(by: \.age).limit(k, offset: o).resolve())"
            })
        case 12:
            return ("users username nil / < name", { c in
                "\(User.query(in: c).filter(\.username == nil || \.username < "name\(n % 5)").resolve().map(\.id))"
            })
        case 13:
            return ("users by username desc (nil last), name", { c in
                "\(User.query(in: c).sorted(by: \.username.desc, \.name).resolve().map(\.id))"
            })
        case 14:
            return ("ids query [\(message), m1, \(message)] timestamp > \(n)", { c in
                "\(Message.query([message, "m1", message, "missing"], in: c).filter(\.timestamp > n).with(\.$author).with(\.$replyTo).with(\.$replies).resolve())"
            })
        case 15:
            return ("one chat \(chat) with messages, their authors and chat", { c in
                "\(String(describing: Chat.query(chat, in: c).with(\.$messages) { $0.sorted(by: \.timestamp.desc).with(\.$author).id(\.$chat) }.with(\.$admins).resolve()))"
            })
        case 16:
            return ("related messages of \(chat), newest \(k)", { c in
                let newest = Chat.query(chat, in: c).related(\.$messages).sorted(by: \.timestamp.desc).limit(k).with(\.$author).resolve()
                let recent = Chat.query(chat, in: c).related(\.$messages).filter(\.timestamp > n).with(\.$replies).with(\.$replyTo).resolve()
                let prefixed = Chat.query(chat, in: c).related(\.$messages).filter(.string(\.text, hasPrefix: word)).sorted(by: \.text)
                    .limit(k, offset: o).resolve()
                return "\(newest) \(recent) \(prefixed.map(\.id))"
            })
        case 17:
            return ("group messages by chat, count", { c in
                "\(Message.query(in: c).filter(\.timestamp < n).group(by: \.$chat).count().map { "\($0)" })"
            })
        case 18:
            return ("sum, min, max, distinct, select", { c in
                let q = Message.query(in: c).filter(\.timestamp > n).sorted(by: \.timestamp).limit(k + 3, offset: o)
                return "\(q.sum(\.timestamp)) \(String(describing: q.min(\.text))) \(String(describing: q.max(\.timestamp))) \(q.distinct(\.text)) \(q.select(\.id, \.timestamp))"
            })
        case 19:
            return ("pages of 3 by timestamp", { c in
                let q = Message.query(in: c).filter(\.timestamp > n).sorted(by: \.timestamp)
                var page = q.page(size: 3)
                var ids = [page.entities.map(\.id)]
                while let next = page.next, ids.count < 20 { page = q.page(size: 3, after: next); ids.append(page.entities.map(\.id)) }
                return "\(ids)"
            })
        case 20:
            return ("updated since, by updatedAt", { c in
                "\(Message.query(in: c).filter(.updated(since: Date(timeIntervalSinceReferenceDate: 0))).sorted(by: .updatedAt).limit(k).resolve().map(\.id))"
            })
        case 21:
            return ("first and last", { c in
                "\(String(describing: Message.query(in: c).sorted(by: \.timestamp).first().resolve()?.id)) \(String(describing: User.query(in: c).last().with(\.$chats).resolve()))"
            })
        case 22:
            return ("count of types, users bulk nested", { c in
                "\(c.count(of: Message.self)) \(c.count(of: User.self)) \(User.queryAll(with: .entities, .ids, in: c).resolve())"
            })
        default:
            return ("message \(message) with everything, user \(user)", { c in
                "\(String(describing: Message.query(message, in: c).with(.fragments, .ids).resolve())) \(String(describing: User.query(user, in: c).with(\.$chats) { $0.with(\.$messages) }.resolve()))"
            })
        }
    }

    static func temporaryFile() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ondemand-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder.appendingPathComponent("store.sqlite")
    }

    @Test(arguments: 0..<6)
    func onDemandAnswersAsResident(seed: UInt64) throws {
        var random = SplitMix64(seed: seed &* 7919 &+ 11)
        let url = try Self.temporaryFile()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        // Opened on demand, the writer creates the SQL indexes the reader's queries use (its
        // writes then run on the whole graph).
        let writer = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(residency: .onDemand))
        let reader = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(readOnly: true, residency: .onDemand))
        #expect(reader.readsOnDemand)
        var compared = 0
        for step in 0..<60 {
            let (_, write) = StoreModelBasedTests.randomStep(&random)
            _ = try? writer.write { try write(&$0) }
            guard step % 4 == 3 else { continue }
            // A resident store opened now reads the file as the on-demand one does (storage
            // order for ties, which a store that wrote its graph may not have).
            let resident = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(readOnly: true))
            let onDemand = reader.context
            for _ in 0..<12 {
                let (name, answer) = Self.randomQuery(&random)
                let expected = answer(resident.context)
                let actual = answer(onDemand)
                if actual != expected {
                    Issue.record("seed \(seed) step \(step): \(name)\n  on demand: \(actual.prefix(400))\n  resident:  \(expected.prefix(400))")
                }
                compared += 1
            }
            resident.close()
        }
        #expect(compared > 100)
        // SQL narrowed most queries: the whole graph was read only for what SQL cannot narrow.
        let statistics = reader.onDemandStatistics
        #expect(statistics.materializations > statistics.wholeGraphReads * 3, "\(statistics)")
    }

    /// Queries inside a write see the write's own changes, on demand as on a resident graph:
    /// two files fed the same writes, one written on demand, the other by a resident store
    /// reopened before each write (so both order ties by storage); each write runs random
    /// steps, then random queries on its own context, and the answers must agree.
    @Test(arguments: 0..<4)
    func queriesInAWriteSeeItsChanges(seed: UInt64) throws {
        var random = SplitMix64(seed: seed &* 104_729 &+ 3)
        let onDemandURL = try Self.temporaryFile(), residentURL = try Self.temporaryFile()
        defer {
            try? FileManager.default.removeItem(at: onDemandURL.deletingLastPathComponent())
            try? FileManager.default.removeItem(at: residentURL.deletingLastPathComponent())
        }
        let onDemand = try Store(.file(onDemandURL), schema: ChatModelsSchema.self, options: .init(residency: .onDemand))
        var compared = 0
        for round in 0..<40 {
            let steps = (0..<Int.random(in: 1...3, using: &random)).map { _ in StoreModelBasedTests.singleStep(&random) }
            let queries = (0..<3).map { _ in Self.randomQuery(&random) }
            let write: @Sendable (inout Context) throws -> [String] = { context in
                for step in steps { try? step.step(&context) }
                return queries.map { $0.answer(context) }
            }
            let resident = try Store(.file(residentURL), schema: ChatModelsSchema.self)
            let expected = try resident.write(write)
            resident.close()
            let actual = try onDemand.write(write)
            // Save times of this write's saves are each store's own clock: not compared.
            for (query, (actual, expected)) in zip(queries, zip(actual, expected)) where actual != expected && !query.name.hasPrefix("save times") {
                Issue.record("seed \(seed) round \(round): \(query.name) after \(steps.map(\.name))\n  on demand: \(actual.prefix(400))\n  resident:  \(expected.prefix(400))")
            }
            compared += queries.count
        }
        #expect(compared == 120)
        #expect(onDemand.readsOnDemand)
        let reopened = try Store(.file(residentURL), schema: ChatModelsSchema.self, options: .init(readOnly: true))
        #expect(try StoreSnapshot(onDemand.context, saveTimes: false) == StoreSnapshot(reopened.context, saveTimes: false))
    }
}
