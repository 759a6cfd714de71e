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
        let user = "u\(Int.random(in: 0..<6, using: &random))"
        let chat = "c\(Int.random(in: 0..<4, using: &random))"
        let message = "m\(Int.random(in: 0..<30, using: &random))"
        let other = "m\(Int.random(in: 0..<30, using: &random))"
        let number = Int.random(in: 0..<1000, using: &random)
        let users = (0..<Int.random(in: 0..<4, using: &random)).map { _ in "u\(Int.random(in: 0..<6, using: &random))" }
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

    @Test(arguments: [1, 2, 3] as [UInt64])
    func storeMatchesTheInMemoryReference(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let folder = try TemporaryFolder()
        var store = try Store(.file(folder.file()), schema: ChatModelsSchema.self)
        var reference = Context()
        var history: [String] = []
        for stepNumber in 0..<250 {
            let (name, step) = Self.randomStep(&random)
            history.append(name)
            let referenceResult = Result { try reference.transaction(step) }
            let storeResult = Result { try store.write(step) }
            #expect((try? referenceResult.get()) != nil ? (try? storeResult.get()) != nil : (try? storeResult.get()) == nil,
                    "step \(stepNumber) \(name): the store and the reference disagree on whether it throws")
            let expected = try StoreSnapshot(reference, saveTimes: false)
            try #require(try StoreSnapshot(store.context, saveTimes: false) == expected,
                         "after step \(stepNumber) \(name)\nhistory: \(history.suffix(8))")
            if stepNumber % 25 == 24 {
                let written = try StoreSnapshot(store.context)
                store.close()
                store = try Store(.file(folder.file()), schema: ChatModelsSchema.self)
                try #require(try StoreSnapshot(store.context) == written, "reopened after step \(stepNumber)\nhistory: \(history.suffix(25))")
                // The reopened graph takes further writes like the reference.
                reference = store.context
            }
        }
    }
}
