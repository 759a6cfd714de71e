import BenchModels
import DeterministicRandom
import Foundation
import SchemaRuntime
import SchemaStore

/// The cross-pack benchmark of docs/Packs.md (issue #13):
///
///   swift run -c release schemastore-bench packs [packs] [messagesPerPack] [rounds]
///
/// `packs` packs of `messagesPerPack` messages each (8 words from 2,000, a unique
/// timestamp; 100 users and 10 chats per pack), opened under an empty user store, against
/// the same entities in one store. Opening and queries alternate between the two, `rounds`
/// times; medians. Open time is also measured with a quarter and half of the packs, to show
/// how it grows.
struct PacksBenchmark {
    let packCount: Int
    let perPack: Int
    let rounds: Int
    let folder: URL

    func run() throws {
        print("schemastore-bench packs: packs=\(packCount) messagesPerPack=\(perPack) total=\(packCount * perPack) rounds=\(rounds)")
        var random = SplitMix64(seed: 7)
        let vocabulary = (0..<2000).map { "word\($0)" }
        let contents = (0..<packCount).map { pack in content(pack: pack, vocabulary: vocabulary, random: &random) }
        let packsFolder = folder.appendingPathComponent("sources")
        try FileManager.default.createDirectory(at: packsFolder, withIntermediateDirectories: true)
        var made: [Pack] = []
        let creating = try milliseconds {
            for (index, fill) in contents.enumerated() {
                made.append(try Pack.create(at: packsFolder.appendingPathComponent("p\(index).pack"),
                                            manifest: PackManifest(title: "Pack \(index)", version: "1"), schema: BenchModelsSchema.self, fill))
            }
        }
        report("create \(packCount) packs", [creating], count: packCount * perPack)
        let single = folder.appendingPathComponent("single.sqlite")
        let one = try Store(.file(single), schema: BenchModelsSchema.self, options: .init(residency: .resident))
        try one.write { context in for fill in contents { try fill(&context) } }
        one.close()

        // Install a quarter, a half and all of the packs in three directories.
        let sizes = Array(Set([max(1, packCount / 4), max(1, packCount / 2), packCount])).sorted()
        var directories: [Int: URL] = [:]
        for size in sizes {
            let directory = folder.appendingPathComponent("installed-\(size)")
            let library = try PackLibrary(directory: directory, schema: BenchModelsSchema.self)
            var installing: [Double] = []
            for pack in made.prefix(size) { installing.append(try milliseconds { try library.install(from: pack.url) }) }
            if size == packCount { report("install 1 pack (median of \(packCount); id checks read the others)", [median(installing)]) }
            directories[size] = directory
        }

        // Open, alternating.
        var openSingle: [Double] = [], openPacks: [Int: [Double]] = [:]
        var singleStore: Store!, packStore: Store!
        for round in 0..<rounds {
            if round > 0 { singleStore.close() }
            openSingle.append(try milliseconds { singleStore = try Store(.file(single), schema: BenchModelsSchema.self, options: .init(residency: .resident)) })
            for size in sizes {
                if size == packCount, round > 0 { packStore.close() }
                let user = folder.appendingPathComponent("user-\(size).sqlite")
                var opened: Store!
                openPacks[size, default: []].append(try milliseconds {
                    opened = try Store(.file(user), schema: BenchModelsSchema.self, packs: directories[size]!, options: .init(residency: .resident))
                })
                if size == packCount { packStore = opened } else { opened.close() }
            }
        }
        report("open one store of \(packCount * perPack) messages", openSingle, count: packCount * perPack)
        for size in sizes {
            report("open a user store over \(size) packs (\(size * perPack) messages)", openPacks[size]!, count: size * perPack)
        }
        precondition(singleStore.context.count(of: Message.self) == packStore.context.count(of: Message.self))

        // Queries, alternating: an indexed range, a full-text AND, a scan filter, and the
        // same restricted to one pack.
        let total = packCount * perPack
        let firstPack = packStore.packs[0].manifest.id
        let queries: [(String, (Context) -> Int)] = [
            ("timestamp range, 1,000 results (ordered index)", { Message.query().filter(\.timestamp >= total / 2 && \.timestamp < total / 2 + 1000).count(in: $0) }),
            ("full text: one word (~0.4% of messages)", { Message.query().filter(.string(\.text, matches: "word7")).count(in: $0) }),
            ("users older than 60 (ordered index)", { User.query().filter(\.age > 60).count(in: $0) }),
            ("newest 20 messages (sorted by index, limit)", { Message.query().sorted(by: \.timestamp).limit(20).resolve(in: $0).count }),
            ("from(.pack) vs the same range unrestricted", { Message.query().filter(\.timestamp < 5000).from(.pack(firstPack)).count(in: $0) }),
            ("a chat's newest 20 messages with authors", { context in
                Chat.query(3, in: context).related(\.$messages).sorted(by: \.timestamp.desc).limit(20).with(\.$author).resolve().count
            }),
        ]
        for (name, query) in queries {
            var singleTimes: [Double] = [], packTimes: [Double] = []
            var singleCount = 0, packCountResult = 0
            for _ in 0..<max(rounds, 5) {
                let singleContext = singleStore.context, packContext = packStore.context
                singleTimes.append(milliseconds { singleCount = query(singleContext) })
                packTimes.append(milliseconds { packCountResult = query(packContext) })
            }
            let sameAnswer = name.hasPrefix("from(") || singleCount == packCountResult
            precondition(sameAnswer, "\(name): \(singleCount) in one store, \(packCountResult) over packs")
            print(name.padding(toLength: 48, withPad: " ", startingAt: 0)
                  + String(format: "one store %8.3f ms   over packs %8.3f ms   (%.2fx, %d results)",
                           median(singleTimes), median(packTimes), median(packTimes) / median(singleTimes), packCountResult))
        }
        singleStore.close()
        packStore.close()
        try onDemand(single: single, user: folder.appendingPathComponent("user-\(packCount).sqlite"),
                     directory: directories[packCount]!, queries: queries)
    }

    /// The same queries on demand: one store against a user store over the packs (the
    /// union in SQL views), each on a snapshot of its own (`read`), alternated; then open +
    /// first query, and single writes: a message of the user's, an edit of a pack's.
    private func onDemand(single: URL, user: URL, directory: URL, queries: [(String, (Context) -> Int)]) throws {
        guard packCount <= Store.maximumPacksOnDemand else {
            print("on demand: skipped, \(packCount) packs are more than SQLite attaches (\(Store.maximumPacksOnDemand))")
            return
        }
        // Opened once for writing on demand: the single store gets its SQL indexes and postings.
        try Store(.file(single), schema: BenchModelsSchema.self, options: .init(residency: .onDemand)).close()
        var openSingle: [Double] = [], openPacks: [Double] = []
        for _ in 0..<rounds {
            openSingle.append(try milliseconds {
                let store = try Store(.file(single), schema: BenchModelsSchema.self, options: .init(residency: .onDemand))
                _ = Message.query().sorted(by: \.timestamp.desc).limit(20).resolve(in: store.context)
                store.close()
            })
            openPacks.append(try milliseconds {
                let store = try Store(.file(user), schema: BenchModelsSchema.self, packs: directory, options: .init(residency: .onDemand))
                _ = Message.query().sorted(by: \.timestamp.desc).limit(20).resolve(in: store.context)
                store.close()
            })
        }
        func line(_ name: String, _ one: [Double], _ packs: [Double]) {
            print(name.padding(toLength: 48, withPad: " ", startingAt: 0)
                  + String(format: "one store %8.3f ms   over packs %8.3f ms   (%.2fx)", median(one), median(packs), median(packs) / median(one)))
        }
        print("on demand (each query on a snapshot of its own):")
        line("open + newest 20 messages", openSingle, openPacks)
        let singleStore = try Store(.file(single), schema: BenchModelsSchema.self, options: .init(residency: .onDemand))
        let packStore = try Store(.file(user), schema: BenchModelsSchema.self, packs: directory, options: .init(residency: .onDemand))
        defer {
            singleStore.close()
            packStore.close()
        }
        precondition(packStore.readsOnDemand && singleStore.readsOnDemand)
        for (name, query) in queries {
            var singleTimes: [Double] = [], packTimes: [Double] = []
            var singleCount = 0, packCountResult = 0
            for _ in 0..<max(rounds, 5) {
                singleTimes.append(try milliseconds { singleCount = try singleStore.read(query) })
                packTimes.append(try milliseconds { packCountResult = try packStore.read(query) })
            }
            precondition(name.hasPrefix("from(") || singleCount == packCountResult, "\(name): \(singleCount) in one store, \(packCountResult) over packs")
            line(name, singleTimes, packTimes)
        }
        // Writes: a new message of the user's, and an edit of a pack's message (an override).
        let total = packCount * perPack
        var newSingle: [Double] = [], newPacks: [Double] = [], editSingle: [Double] = [], editPacks: [Double] = []
        for round in 0..<max(rounds, 5) {
            let message = Message(id: total + round, text: "mine \(round)", timestamp: total + round, chat: .id(0), author: .id(0))
            newSingle.append(try milliseconds { try singleStore.write { try message.save(to: &$0) } })
            newPacks.append(try milliseconds { try packStore.write { try message.save(to: &$0) } })
            let edited = round * 997 % total
            editSingle.append(try milliseconds { try singleStore.write { context in
                var message = context.find(Message.self, id: edited)!
                message.text += " edited"
                try message.save(to: &context)
            } })
            editPacks.append(try milliseconds { try packStore.write { context in
                var message = context.find(Message.self, id: edited)!
                message.text += " edited"
                try message.save(to: &context)
            } })
        }
        line("write: a new message of the user's", newSingle, newPacks)
        line("write: edit a message (over packs: an override)", editSingle, editPacks)
    }

    /// One pack's content: its own users, chats and messages (ids unique across packs).
    private func content(pack: Int, vocabulary: [String], random: inout SplitMix64) -> @Sendable (inout Context) throws -> Void {
        let userBase = pack * 100, chatBase = pack * 10, messageBase = pack * perPack
        let users = (0..<100).map { User(id: userBase + $0, name: "user\(userBase + $0)", age: Int.random(in: 18...80, using: &random)) }
        let texts = (0..<perPack).map { _ in (0..<8).map { _ in vocabulary.randomElement(using: &random)! }.joined(separator: " ") }
        let authors = (0..<perPack).map { _ in userBase + Int.random(in: 0..<100, using: &random) }
        let perChat = perPack / 10
        return { context in
            for user in users { try user.save(to: &context) }
            for chat in 0..<10 {
                try Chat(id: chatBase + chat, title: "chat\(chatBase + chat)", users: .ids((0..<10).map { userBase + chat * 10 + $0 })).save(to: &context)
            }
            for index in 0..<perPack {
                // Interleaved timestamps: every pack has messages all over the range.
                try Message(id: messageBase + index, text: texts[index], timestamp: index * packCount + pack,
                            chat: .id(chatBase + min(index / max(perChat, 1), 9)), author: .id(authors[index])).save(to: &context)
            }
        }
    }
}
