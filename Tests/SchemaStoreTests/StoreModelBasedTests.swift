import ChatModels
import DeterministicRandom
import Foundation
import SchemaRuntime
import SchemaStore
import Testing

/// Random write sequences applied to a store and to a plain in-memory context (the
/// reference), with the store closed and reopened now and then: after every step the
/// store's graph, and after every reopen the file's, equal the reference.
@Suite struct StoreModelBasedTests {
    /// One random write, applied the same way to both sides.
    typealias Step = @Sendable (inout Context) throws -> Void

    struct Planned: Error {}

    static func randomStep(_ random: inout SplitMix64) -> (name: String, step: Step) {
        // Now and then several steps in one write: a write reading on demand must see what
        // its own earlier saves did (links, lists, deletes) when later ones touch it again.
        if Int.random(in: 0..<5, using: &random) == 0 {
            let steps = (0..<Int.random(in: 2...4, using: &random)).map { _ in singleStep(&random) }
            return ("in one write: " + steps.map(\.name).joined(separator: "; "), { context in
                for step in steps { try step.step(&context) }
            })
        }
        return singleStep(&random)
    }

    /// One write of one step; `crowded` draws from fewer ids, so steps meet the same entities.
    static func singleStep(_ random: inout SplitMix64, crowded: Bool = false) -> (name: String, step: Step) {
        let (userCount, chatCount, messageCount) = crowded ? (3, 2, 8) : (6, 4, 30)
        let user = "u\(Int.random(in: 0..<userCount, using: &random))"
        let chat = "c\(Int.random(in: 0..<chatCount, using: &random))"
        let message = "m\(Int.random(in: 0..<messageCount, using: &random))"
        let other = "m\(Int.random(in: 0..<messageCount, using: &random))"
        let number = Int.random(in: 0..<1000, using: &random)
        let users = (0..<Int.random(in: 0..<4, using: &random)).map { _ in "u\(Int.random(in: 0..<userCount, using: &random))" }
        switch Int.random(in: 0..<17, using: &random) {
        case 0:
            return ("save user \(user)", { try User(id: user, name: "n\(number)", username: number % 3 == 0 ? "name\(number % 5)" : nil,
                                                    age: number % 90, status: number % 2 == 0 ? .away : .active).save(to: &$0) })
        case 1:
            return ("save chat \(chat) users \(users)", { try Chat(id: chat, title: "t\(number)", users: .ids(users)).save(to: &$0) })
        case 2, 3:
            // Now and then by an author without a row: a one-way link to an id is valid data
            // that archives, restores and reopening must keep.
            return ("save message \(message) in \(chat)", { context in
                if number % 5 != 0 { try User(id: user, name: "n\(number)").save(to: &context, options: .fragment) }
                try Message(id: message, text: number % 2 == 0 ? "hello \(number)" : "bye \(number)", timestamp: number,
                            tags: ["t\(number % 3)"], author: .id(user), chat: .id(chat)).save(to: &context)
            })
        case 4:
            return ("delete message \(message)", { context in
                guard let stored = context.find(Message.self, id: message) else { return }
                try stored.delete(from: &context)
            })
        case 5:
            return ("delete chat \(chat) (cascade)", { try Chat(id: chat).delete(from: &$0) })
        case 6:
            // A quarter of replies are to the message itself: links to itself must survive archives.
            let parent = number % 4 == 0 ? message : other
            return ("reply \(message) to \(parent)", { context in
                guard context.find(Message.self, id: message) != nil, context.find(Message.self, id: parent) != nil else { return }
                try Message(id: message, text: "reply \(number)", author: .id(user), chat: .id(chat), replyTo: .id(parent)).save(to: &context, options: .fragment)
            })
        case 7:
            return ("\(users) viewed \(message)", { context in
                guard var stored = context.find(Message.self, id: message) else { return }
                stored.$viewedBy = .appending(ids: users)
                try stored.save(to: &context)
            })
        case 8:
            return ("admins of \(chat) = \(users)", { context in
                guard context.find(Chat.self, id: chat) != nil else { return }
                try Chat(id: chat, admins: .ids(users)).save(to: &context, options: .fragment)
            })
        case 9:
            return ("attach to \(message)", { context in
                guard context.find(Message.self, id: message) != nil else { return }
                try Message(id: message, text: "with file", author: .id(user), chat: .id(chat),
                            attachment: .relation(Attachment(id: "a\(number % 7)", kind: .file))).save(to: &context)
            })
        case 10:
            return ("delete user \(user)", { try User(id: user, name: "").delete(from: &$0) })
        case 11:
            return ("a write that throws", { context in
                try User(id: "u-thrown", name: "never").save(to: &context)
                try Chat(id: chat).delete(from: &context)
                throw Planned()
            })
        case 12:
            // Positions may fall outside the list: both sides then refuse the call alike.
            return ("move message \(number % 5) of \(chat) to \(number % 3)", { context in
                try Chat(id: chat).move(\.$messages, from: number % 5, to: number % 3, in: &context)
            })
        case 13:
            return ("insert \(users) at \(number % 3) into users of \(chat)", { context in
                try Chat(id: chat).insert(users, at: number % 3, into: \.$users, in: &context)
            })
        case 14:
            return ("archive \(message)", { context in
                guard let archive = context.find(Message.self, id: message)?.asDeleted(in: context) else { return }
                try archive.save(to: &context)
            })
        case 15:
            // Restoring may leave a required relation empty (its chat deleted since): then it throws on both sides.
            return ("restore \(message)", { context in
                guard let archive = context.find(Deleted<Message>.self, id: message) else { return }
                try archive.restore(in: &context)
            })
        default:
            return ("edit text of \(message)", { context in
                guard var stored = context.find(Message.self, id: message) else { return }
                stored.text = "edited \(number)"
                stored.editedAt = Date(timeIntervalSinceReferenceDate: Double(number) / 3)
                try stored.save(to: &context)
            })
        }
    }

    /// Both residencies: a store reading on demand writes through a context that reads the
    /// file as the writes touch it, and must end up with the same graph.
    @Test(arguments: SoakSeeds.seeds([1, 2, 3]), [Store.Residency.resident, .onDemand])
    func storeMatchesTheInMemoryReference(seed: UInt64, residency: Store.Residency) throws {
        var random = SplitMix64(seed: seed)
        let folder = try TemporaryFolder()
        let options = Store.Options(residency: residency)
        var store = try Store(.file(folder.file()), schema: ChatModelsSchema.self, options: options)
        var reference = Context()
        var history: [String] = []
        for stepNumber in 0..<250 {
            let (name, step) = Self.randomStep(&random)
            history.append(name)
            let referenceResult = Result { try reference.transaction(step) }
            let storeResult = Result { try store.write(step) }
            #expect((try? referenceResult.get()) != nil ? (try? storeResult.get()) != nil : (try? storeResult.get()) == nil,
                    "step \(stepNumber) \(name): the store and the reference disagree on whether it throws")
            #expect(store.readsOnDemand == (residency == .onDemand))
            let expected = try StoreSnapshot(reference, saveTimes: false)
            try #require(try StoreSnapshot(store.context, saveTimes: false) == expected,
                         "after step \(stepNumber) \(name)\nhistory: \(history.suffix(8))")
            if stepNumber % 25 == 24 {
                let written = try StoreSnapshot(store.context)
                store.close()
                store = try Store(.file(folder.file()), schema: ChatModelsSchema.self, options: options)
                try #require(try StoreSnapshot(store.context) == written, "reopened after step \(stepNumber)\nhistory: \(history.suffix(25))")
                // The reopened graph takes further writes like the reference (the file's
                // graph, in storage order, whichever way the store reads it).
                reference = try Store(.file(folder.file()), schema: ChatModelsSchema.self, options: .init(readOnly: true, residency: .resident)).context
            }
        }
    }

    /// Writes of several steps each over few ids, on a store reading on demand: each write
    /// reads the file as its steps touch it, so a later step must find what an earlier one
    /// of the same write changed (a list it appended to, an entity it deleted or moved).
    @Test(arguments: SoakSeeds.seeds([1, 2, 3, 4]))
    func onDemandWritesOfManyStepsMatchTheReference(seed: UInt64) throws {
        var random = SplitMix64(seed: seed &+ 100)
        let folder = try TemporaryFolder()
        let store = try Store(.file(folder.file()), schema: ChatModelsSchema.self, options: .init(residency: .onDemand))
        var reference = Context()
        var history: [String] = []
        for stepNumber in 0..<120 {
            let steps = (0..<Int.random(in: 2...6, using: &random)).map { _ in Self.singleStep(&random, crowded: true) }
            let name = steps.map(\.name).joined(separator: "; ")
            history.append(name)
            let write: Step = { context in for step in steps { try step.step(&context) } }
            let referenceResult = Result { try reference.transaction(write) }
            let storeResult = Result { try store.write(write) }
            #expect((try? referenceResult.get()) != nil ? (try? storeResult.get()) != nil : (try? storeResult.get()) == nil,
                    "write \(stepNumber) \(name): the store and the reference disagree on whether it throws")
            try #require(try StoreSnapshot(store.context, saveTimes: false) == StoreSnapshot(reference, saveTimes: false),
                         "after write \(stepNumber): \(name)\nhistory: \(history.suffix(4))")
        }
        #expect(store.readsOnDemand)
    }
}
