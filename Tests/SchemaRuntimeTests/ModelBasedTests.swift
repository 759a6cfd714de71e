import ChatModels
import DeterministicRandom
import SchemaRuntime
import Testing

/// Random sequences of saves, fragment saves, relation changes, deletes and rolled-back
/// transactions on the chat domain, checked after every step against `ReferenceModel`, a
/// deliberately naive model: sets of stored ids and sets of links.
@Suite struct ModelBasedTests {
    /// 60 seeds × 120 steps in CI (about 7,200 operations, each followed by every check).
    @Test(arguments: SoakSeeds.seeds(Array(0..<60)))
    func randomOperationsMatchTheReferenceModel(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var context = Context()
        // The same operations on a context compacted after every step: nothing observable,
        // in order, may differ (context order, link order, save times).
        var compacted = Context()
        var model = ReferenceModel()
        var refused = 0
        for step in 0..<120 {
            let operation = Operation.random(using: &random)
            if case .rolledBack(let inner) = operation {
                struct Abort: Error {}
                for index in 0..<2 {
                    var attempt = index == 0 ? context : compacted
                    _ = try? attempt.transaction { context in
                        for op in inner { try op.apply(to: &context) }
                        throw Abort()
                    }
                    if index == 0 { context = attempt } else { compacted = attempt }
                }
            } else {
                do {
                    try operation.apply(to: &context)
                    model.apply(operation)
                    try operation.apply(to: &compacted)
                    #expect(model.requiredLinksHold, "seed \(seed), step \(step): a message lost a required link in \(operation)")
                } catch is UniqueConstraintViolation {
                    // The email index throws; the model predicts exactly when.
                    #expect(model.wouldViolate(operation), "seed \(seed), step \(step): unexpected violation \(operation)")
                    #expect(throws: UniqueConstraintViolation.self) { try operation.apply(to: &compacted) }
                } catch is RequiredRelationViolation {
                    refused += 1
                    // Every stored message needs its chat and author: the model predicts when a
                    // write would leave one without, and the context must be left as it was.
                    #expect(model.wouldLeaveRequiredLinksEmpty(operation), "seed \(seed), step \(step): unexpected \(operation)")
                    #expect(throws: RequiredRelationViolation.self) { try operation.apply(to: &compacted) }
                }
            }
            compacted.compact()
            ReferenceModel.checkIndexes(context)
            MessageChecks.check(context, using: &random)
            let observed = ReferenceModel.Observation(context)
            let expected = model.observation
            #expect(observed == expected, "seed \(seed), step \(step): \(operation)")
            let ordered = OrderedObservation(context), orderedCompacted = OrderedObservation(compacted)
            #expect(ordered == orderedCompacted, "seed \(seed), step \(step): compaction changed \(operation)")
            if observed != expected || ordered != orderedCompacted { return }
        }
        #expect(refused > 0, "seed \(seed): no operation broke a required relation")
    }
}


/// The indexed fields of a user: username (unique, upsert), email (unique, throws),
/// isCurrent (unique, resolved by un-marking the previous current user), age (ordered).
struct UserFields: Equatable {
    var username: String?
    var email: String?
    var isCurrent: Bool?
    var age: Int
}

indirect enum Operation {
    enum ListChange { case none, replace([String]), append([String]) }
    enum OneChange { case none, null, set(String) }

    case saveUser(String, name: String, bio: String?, fields: UserFields, fragment: Bool)
    case saveChat(String, users: ListChange, admins: ListChange)
    /// A chat with embedded messages, as `.relation` or `.fragment`, each by `author` if given.
    case saveChatMessages(String, messages: [String], author: String?, fragments: Bool)
    /// A message saved with its `replies` (the to-many side of `replyTo`).
    case saveReplies(String, ListChange)
    case saveMessage(String, text: String, timestamp: Int, chat: String?, author: String?, attachment: OneChange, replyTo: OneChange, viewedBy: ListChange)
    case delete(kind: Int, id: String)
    /// `asDeleted(in:)` saved (archive), then later `restore(in:)`.
    case softDeleteUser(String)
    case restoreUser(String)
    /// A message archived and restored: it may link to itself (`replyTo`, `replies`) and hold
    /// one-way links to ids without a row (`author`, `viewedBy`), which restore must keep.
    case softDeleteMessage(String)
    case restoreMessage(String)
    /// `detach(\.$users)` and `delete(\.$messages)` on a chat.
    case detachChatUsers(String)
    case deleteChatMessages(String)
    /// Several users saved in one transaction: all or none.
    case saveUsers([Operation])
    case rolledBack([Operation])
    /// `context.compact()`: nothing observable may change.
    case compact

    static let ids = ["a", "b", "c", "d"]
    /// Message texts: case, combining marks, precomposed letters, final sigma, emoji.
    static let words = ["alpha", "Beta", "cafe\u{301}", "café", "ΣΟΦΙΑ", "σοφίας", "İz", "e\u{301}x", "👍🏽", "a-b", "straße", "a\u{2260}b", "a=\u{338}b"]


    static func random(using random: inout SplitMix64) -> Operation {
        func id() -> String { ids.randomElement(using: &random)! }
        func list() -> ListChange {
            let items = ids.filter { _ in Bool.random(using: &random) }
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return .none
            case 1: return .replace(items)
            default: return .append(items)
            }
        }
        func one() -> OneChange {
            switch Int.random(in: 0..<3, using: &random) {
            case 0: return .none
            case 1: return .null
            default: return .set(id())
            }
        }
        func user() -> Operation {
            let fields = UserFields(username: [nil, "u1", "u2"].randomElement(using: &random)!, email: [nil, nil, "e1", "e2"].randomElement(using: &random)!,
                                    isCurrent: [nil, nil, true].randomElement(using: &random)!, age: Int.random(in: 0..<4, using: &random))
            return .saveUser(id(), name: id(), bio: Bool.random(using: &random) ? id() : nil, fields: fields, fragment: Bool.random(using: &random))
        }
        func text() -> String {
            (0..<Int.random(in: 0..<4, using: &random)).map { _ in words.randomElement(using: &random)! }.joined(separator: [" ", ", ", "_"].randomElement(using: &random)!)
        }
        switch Int.random(in: 0..<20, using: &random) {
        case 0, 1: return user()
        case 2, 3: return .saveChat(id(), users: list(), admins: list())
        case 4:
            if Bool.random(using: &random) { return .saveReplies(id(), list()) }
            return .saveChatMessages(id(), messages: ids.filter { _ in Bool.random(using: &random) },
                                     author: Bool.random(using: &random) ? id() : nil, fragments: Bool.random(using: &random))
        case 5, 6, 7:
            // Mostly with both required links: a new message without one is refused.
            return .saveMessage(id(), text: text(), timestamp: Int.random(in: 0..<5, using: &random),
                                chat: Int.random(in: 0..<5, using: &random) > 0 ? id() : nil,
                                author: Int.random(in: 0..<5, using: &random) > 0 ? id() : nil,
                                attachment: one(), replyTo: one(), viewedBy: list())
        case 8, 9: return .delete(kind: Int.random(in: 0..<4, using: &random), id: id())
        case 10: return .compact
        case 11: return .softDeleteUser(id())
        case 12: return .restoreUser(id())
        case 13: return .detachChatUsers(id())
        case 14: return .deleteChatMessages(id())
        case 15: return .saveUsers((0..<Int.random(in: 1..<4, using: &random)).map { _ in user() })
        case 16: return .softDeleteMessage(id())
        case 17: return .restoreMessage(id())
        default: return .rolledBack((0..<3).map { _ in Operation.random(using: &random) }.filter {
            switch $0 {
            case .rolledBack, .compact: false
            default: true
            }
        })
        }
    }

    private static func many<T, D>(_ change: ListChange) -> ToMany<T, D> where T.ID == String {
        switch change {
        case .none: .none
        case .replace(let ids): .ids(ids)
        case .append(let ids): .appending(ids: ids)
        }
    }

    func apply(to context: inout Context) throws {
        switch self {
        case let .saveUser(id, name, bio, fields, fragment):
            let user = User(id: id, name: name, username: fields.username, email: fields.email, age: fields.age,
                            isCurrent: fields.isCurrent, profile: bio.map { Profile(bio: $0) })
            try user.save(to: &context, options: fragment ? .fragment : .default)
        case let .saveChat(id, users, admins):
            try Chat(id: id, users: Self.many(users), admins: Self.many(admins)).save(to: &context)
        case let .saveReplies(id, change):
            try Message(id: id, text: "r", replies: Self.many(change)).save(to: &context)
        case let .saveChatMessages(id, messages, author, fragments):
            let embedded = messages.map { Message(id: $0, text: "from chat", author: author.map { .id($0) } ?? .none) }
            try Chat(id: id, messages: fragments ? .fragment(embedded) : .relation(embedded)).save(to: &context, options: .fragment)
        case let .saveMessage(id, text, timestamp, chat, author, attachment, replyTo, viewedBy):
            var message = Message(id: id, text: text, timestamp: timestamp, viewedBy: Self.many(viewedBy))
            if let chat { message.$chat = .id(chat) }
            if let author { message.$author = .id(author) }
            switch attachment {
            case .none: break
            case .null: message.$attachment = .null
            case .set(let a): message.$attachment = .relation(Attachment(id: a))
            }
            switch replyTo {
            case .none: break
            case .null: message.$replyTo = .null
            case .set(let parent): message.$replyTo = .id(parent)
            }
            try message.save(to: &context)
        case let .delete(kind, id):
            switch kind {
            case 0: try User(id: id, name: "").delete(from: &context)
            case 1: try Chat(id: id).delete(from: &context)
            case 2: try Message(id: id, text: "").delete(from: &context)
            default: try Attachment(id: id).delete(from: &context)
            }
        case .softDeleteUser(let id):
            try User(id: id, name: "").asDeleted(in: context)?.save(to: &context)
        case .restoreUser(let id):
            try context.find(Deleted<User>.self, id: id)?.restore(in: &context)
        case .softDeleteMessage(let id):
            try Message(id: id, text: "").asDeleted(in: context)?.save(to: &context)
        case .restoreMessage(let id):
            try context.find(Deleted<Message>.self, id: id)?.restore(in: &context)
        case .detachChatUsers(let id):
            try Chat(id: id).detach(\.$users, in: &context)
        case .deleteChatMessages(let id):
            try Chat(id: id).delete(\.$messages, from: &context)
        case .saveUsers(let operations):
            try context.transaction { context in
                for operation in operations { try operation.apply(to: &context) }
            }
        case .rolledBack:
            break
        case .compact:
            context.compact()
        }
    }
}

/// Sets of stored ids and links, updated by the README's rules written out longhand.
struct ReferenceModel {
    struct Pair: Hashable { var from: String, to: String }

    var users: [String: (name: String, bio: String?, fields: UserFields)] = [:]
    var chats: Set<String> = [], messages: Set<String> = [], attachments: Set<String> = []
    /// Message id -> text and timestamp.
    var messageValues: [String: (text: String, timestamp: Int)] = [:]
    /// Soft-deleted users: what they were, and the chats they were linked to (stored ones).
    var archive: [String: (name: String, bio: String?, fields: UserFields, chats: [String], adminOf: [String])] = [:]
    /// Soft-deleted messages: what they were and every id they linked to, stored or not.
    var messageArchive: [String: ArchivedMessage] = [:]
    struct ArchivedMessage {
        var text: String, timestamp: Int
        var chat: String?, author: String?, attachment: String?, replyTo: String?
        var replies: Set<String>, viewedBy: Set<String>
    }
    var chatUsers: Set<Pair> = [], chatAdmins: Set<Pair> = [], viewedBy: Set<Pair> = []
    var messageChat: [String: String] = [:], messageAuthor: [String: String] = [:]
    var messageAttachment: [String: String] = [:], replyTo: [String: String] = [:]

    private static func change(_ pairs: inout Set<Pair>, from: String, _ change: Operation.ListChange) {
        switch change {
        case .none: break
        case .replace(let ids):
            pairs = pairs.filter { $0.from != from }
            for id in ids { pairs.insert(Pair(from: from, to: id)) }
        case .append(let ids):
            for id in ids { pairs.insert(Pair(from: from, to: id)) }
        }
    }

    mutating func apply(_ operation: Operation) {
        switch operation {
        case let .saveUser(id, name, bio, fields, fragment):
            guard !wouldViolate(operation) else { return }
            let (keptBio, merged) = mergedUser(id, bio, fields, fragment)
            // Unique indexes in schema order: username upserts, email throws (excluded above),
            // isCurrent un-marks the previous current user.
            if let username = merged.username, let holder = users.first(where: { $0.key != id && $0.value.fields.username == username })?.key {
                deleteUser(holder)
            }
            if merged.isCurrent != nil, let holder = users.first(where: { $0.key != id && $0.value.fields.isCurrent != nil })?.key {
                users[holder]!.fields.isCurrent = nil
            }
            users[id] = (name, keptBio, merged)
        case let .saveChat(id, usersChange, adminsChange):
            chats.insert(id)
            Self.change(&chatUsers, from: id, usersChange)
            Self.change(&chatAdmins, from: id, adminsChange)
        case let .saveReplies(id, change):
            messages.insert(id)
            messageValues[id] = ("r", 0)
            switch change {
            case .none: break
            case .replace(let children):
                for (child, parent) in replyTo where parent == id && !children.contains(child) { replyTo[child] = nil }
                for child in children { replyTo[child] = id }
            case .append(let children):
                for child in children { replyTo[child] = id }
            }
        case let .saveChatMessages(id, list, author, _):
            chats.insert(id)
            messages.formUnion(list)
            for message in list { messageValues[message] = ("from chat", 0) }
            if let author { for message in list { messageAuthor[message] = author } }
            for (message, chat) in messageChat where chat == id && !list.contains(message) { messageChat[message] = nil }
            for message in list { messageChat[message] = id }
        case let .saveMessage(id, text, timestamp, chat, author, attachment, parent, viewed):
            messages.insert(id)
            messageValues[id] = (text, timestamp)
            if let chat { messageChat[id] = chat }
            if let author { messageAuthor[id] = author }
            switch attachment {
            case .none: break
            case .null: messageAttachment[id] = nil
            case .set(let a):
                attachments.insert(a)
                for (other, value) in messageAttachment where value == a { messageAttachment[other] = nil }
                messageAttachment[id] = a
            }
            switch parent {
            case .none: break
            case .null: replyTo[id] = nil
            case .set(let p): replyTo[id] = p
            }
            Self.change(&viewedBy, from: id, viewed)
        case let .delete(kind, id):
            switch kind {
            case 0: deleteUser(id)
            case 1: deleteChat(id)
            case 2: deleteMessage(id)
            default: deleteAttachment(id)
            }
        case .softDeleteUser(let id):
            guard let user = users[id] else { return }
            archive[id] = (user.name, user.bio, user.fields,
                           chatUsers.filter { $0.to == id && chats.contains($0.from) }.map(\.from),
                           chatAdmins.filter { $0.to == id && chats.contains($0.from) }.map(\.from))
            deleteUser(id)
        case .restoreUser(let id):
            guard let archived = archive[id], !wouldViolate(operation) else { return }
            apply(.saveUser(id, name: archived.name, bio: archived.bio, fields: archived.fields, fragment: false))
            // Links come back as ids, replacing the stored ones, and only to chats still stored.
            chatUsers = chatUsers.filter { $0.to != id }
            chatAdmins = chatAdmins.filter { $0.to != id }
            for chat in archived.chats where chats.contains(chat) { chatUsers.insert(Pair(from: chat, to: id)) }
            for chat in archived.adminOf where chats.contains(chat) { chatAdmins.insert(Pair(from: chat, to: id)) }
            archive[id] = nil
        case .softDeleteMessage(let id):
            guard messages.contains(id) else { return }
            messageArchive[id] = ArchivedMessage(
                text: messageValues[id]!.text, timestamp: messageValues[id]!.timestamp,
                chat: messageChat[id], author: messageAuthor[id], attachment: messageAttachment[id], replyTo: replyTo[id],
                replies: Set(replyTo.filter { $0.value == id }.map(\.key)), viewedBy: Set(viewedBy.filter { $0.from == id }.map(\.to)))
            deleteMessage(id)
        case .restoreMessage(let id):
            guard let archived = messageArchive[id] else { return }
            // Saving the archived message back: one-way links (author, viewedBy) as they were,
            // links to itself, and mutual links only to entities stored now. A link dropped
            // from a to-one leaves the stored one (a message saved since under the id) alone.
            messages.insert(id)
            messageValues[id] = (archived.text, archived.timestamp)
            func kept(_ target: String?, in stored: Set<String>) -> String? {
                target.flatMap { stored.contains($0) ? $0 : nil }
            }
            if let chat = kept(archived.chat, in: chats) { messageChat[id] = chat }
            if let author = archived.author { messageAuthor[id] = author }
            if let attachment = kept(archived.attachment, in: attachments) {
                for (other, value) in messageAttachment where value == attachment { messageAttachment[other] = nil }
                messageAttachment[id] = attachment
            }
            if let parent = kept(archived.replyTo, in: messages) { replyTo[id] = parent }
            let children = archived.replies.filter { messages.contains($0) }
            for (child, parent) in replyTo where parent == id && !children.contains(child) { replyTo[child] = nil }
            for child in children { replyTo[child] = id }
            viewedBy = viewedBy.filter { $0.from != id }
            for user in archived.viewedBy { viewedBy.insert(Pair(from: id, to: user)) }
            messageArchive[id] = nil
        case .detachChatUsers(let id):
            chatUsers = chatUsers.filter { $0.from != id }
        case .deleteChatMessages(let id):
            let linked = messageChat.filter { $0.value == id }.map(\.key).sorted()
            for message in linked { messageChat[message] = nil }
            for message in linked { deleteMessage(message) }
        case .saveUsers(let operations):
            guard !wouldViolate(operation) else { return }
            for operation in operations { apply(operation) }
        case .rolledBack, .compact:
            break
        }
    }

    /// The stored fields after a save: fragments keep stored values of optional fields left nil.
    func mergedUser(_ id: String, _ bio: String?, _ fields: UserFields, _ fragment: Bool) -> (String?, UserFields) {
        guard fragment, let old = users[id] else { return (bio, fields) }
        var merged = fields
        merged.username = fields.username ?? old.fields.username
        merged.email = fields.email ?? old.fields.email
        merged.isCurrent = fields.isCurrent ?? old.fields.isCurrent
        return (bio ?? old.bio, merged)
    }

    /// Whether every stored message links to a chat and an author (`required` relations; the
    /// author is one-way, so its link stays when the user is deleted).
    var requiredLinksHold: Bool {
        messages.allSatisfy { messageChat[$0] != nil && messageAuthor[$0] != nil }
    }

    /// Whether applying the operation would leave a stored message without a required link.
    func wouldLeaveRequiredLinksEmpty(_ operation: Operation) -> Bool {
        var after = self
        after.apply(operation)
        return !after.requiredLinksHold
    }

    /// Whether the operation would collide on the email index (after the username upsert).
    func wouldViolate(_ operation: Operation) -> Bool {
        switch operation {
        case .restoreUser(let id):
            guard let archived = archive[id] else { return false }
            return wouldViolate(.saveUser(id, name: archived.name, bio: archived.bio, fields: archived.fields, fragment: false))
        case .saveUsers(let operations):
            var model = self
            for operation in operations {
                if model.wouldViolate(operation) { return true }
                model.apply(operation)
            }
            return false
        default:
            break
        }
        guard case let .saveUser(id, _, bio, fields, fragment) = operation else { return false }
        let merged = mergedUser(id, bio, fields, fragment).1
        guard let email = merged.email else { return false }
        let replaced = merged.username.flatMap { username in users.first { $0.key != id && $0.value.fields.username == username }?.key }
        return users.contains { $0.key != id && $0.key != replaced && $0.value.fields.email == email }
    }

    /// Indexed queries equal scans, and unique fields are unique, in any reachable state.
    static func checkIndexes(_ context: Context) {
        let all = User.query(in: context).resolve()
        for age in 0..<4 {
            #expect(User.filter(\.age == age, in: context).resolve().map(\.id) == all.filter { $0.age == age }.map(\.id))
        }
        #expect(User.filter(\.age >= 2, in: context).resolve().map(\.id) == all.filter { $0.age >= 2 }.map(\.id))
        let byAge = all.enumerated().sorted { ($0.element.age, $0.offset) < ($1.element.age, $1.offset) }.map(\.element.id)
        #expect(User.query(in: context).sorted(by: \.age).resolve().map(\.id) == byAge)
        for username in ["u1", "u2"] {
            #expect(User.filter(\.username == username, in: context).resolve().map(\.id) == all.filter { $0.username == username }.map(\.id))
        }
        #expect(User.filter(\.isCurrent == true, in: context).resolve().map(\.id) == all.filter { $0.isCurrent == true }.map(\.id))
        // Unique indexes hold no nil keys: `== nil` must still find every such user.
        #expect(User.filter(\.email == nil, in: context).resolve().map(\.id) == all.filter { $0.email == nil }.map(\.id))
        #expect(User.filter(\.isCurrent == nil || \.username == nil, in: context).count() == all.filter { $0.isCurrent == nil || $0.username == nil }.count)
        #expect(all.filter { $0.isCurrent == true }.count <= 1)
        for email in ["e1", "e2"] { #expect(all.filter { $0.email == email }.count <= 1) }
        #expect(User.filter(.string(\.name, matches: "a"), in: context).resolve().map(\.id).sorted()
                == all.filter { TextTokenizer.tokens($0.name + " " + ($0.username ?? "")).contains("a") }.map(\.id).sorted())
    }

    private mutating func deleteUser(_ id: String) {
        guard users.removeValue(forKey: id) != nil else { return }
        chatUsers = chatUsers.filter { $0.to != id }
        chatAdmins = chatAdmins.filter { $0.to != id }
    }

    private mutating func deleteChat(_ id: String) {
        guard chats.remove(id) != nil else { return }
        chatUsers = chatUsers.filter { $0.from != id }
        chatAdmins = chatAdmins.filter { $0.from != id }
        let owned = messageChat.filter { $0.value == id }.map(\.key).sorted()
        for message in owned { messageChat[message] = nil }
        for message in owned { deleteMessage(message) }
    }

    private mutating func deleteMessage(_ id: String) {
        guard messages.remove(id) != nil else { return }
        messageChat[id] = nil
        messageAuthor[id] = nil
        let attachment = messageAttachment.removeValue(forKey: id)
        for (child, parent) in replyTo where parent == id { replyTo[child] = nil }
        replyTo[id] = nil
        viewedBy = viewedBy.filter { $0.from != id }
        if let attachment { deleteAttachment(attachment) }
    }

    private mutating func deleteAttachment(_ id: String) {
        guard attachments.remove(id) != nil else { return }
        for (message, value) in messageAttachment where value == id { messageAttachment[message] = nil }
    }

    /// What queries should see: links only to stored entities.
    struct Observation: Equatable {
        var users: [String: String] = [:] // id -> "name|bio|chats|adminOf"
        var chats: [String: String] = [:]
        var messages: [String: String] = [:]
        var attachments: [String: String] = [:]
        var archivedMessages: [String: String] = [:]

        static func ids(_ ids: some Sequence<String>) -> String { ids.sorted().joined(separator: ",") }

        init() {}

        init(_ context: Context) {
            for user in User.queryAll(with: .ids, in: context).resolve() {
                let fields = "\(user.username ?? "-")|\(user.email ?? "-")|\(user.isCurrent.map(String.init) ?? "-")|\(user.age)"
                users[user.id] = "\(user.name)|\(user.profile?.bio ?? "-")|\(fields)|\(Self.ids(user.$chats.ids!))|\(Self.ids(user.$adminOf.ids!))"
            }
            for chat in Chat.queryAll(with: .ids, in: context).resolve() {
                chats[chat.id] = "\(Self.ids(chat.$users.ids!))|\(Self.ids(chat.$admins.ids!))|\(Self.ids(chat.$messages.ids!))"
            }
            for m in Message.queryAll(with: .ids, in: context).resolve() {
                messages[m.id] = "\(m.text)|\(m.timestamp)|\(m.$chat.id ?? "-")|\(m.$author.id ?? "-")|\(m.$attachment.id ?? "-")|\(m.$replyTo.id ?? "-")|\(Self.ids(m.$replies.ids!))|\(Self.ids(m.$viewedBy.ids!))"
            }
            for a in Attachment.queryAll(with: .ids, in: context).resolve() {
                attachments[a.id] = a.$message.id ?? "-"
            }
            for archived in Deleted<Message>.query(in: context).resolve() {
                let m = archived.entity
                archivedMessages[m.id] = "\(m.text)|\(m.$author.id ?? "-")|\(m.$replyTo.id ?? "-")|\(Self.ids(m.$replies.ids ?? []))|\(Self.ids(m.$viewedBy.ids ?? []))"
            }
        }
    }

    var observation: Observation {
        var result = Observation()
        func ids(_ values: some Sequence<String>) -> String { Observation.ids(values) }
        func stored(_ set: Set<String>, _ id: String?) -> String { id.flatMap { set.contains($0) ? $0 : nil } ?? "-" }
        let userIDs = Set(users.keys)
        for (id, user) in users {
            let f = user.fields
            let fields = "\(f.username ?? "-")|\(f.email ?? "-")|\(f.isCurrent.map(String.init) ?? "-")|\(f.age)"
            result.users[id] = "\(user.name)|\(user.bio ?? "-")|\(fields)|\(ids(chatUsers.filter { $0.to == id && chats.contains($0.from) }.map(\.from)))|\(ids(chatAdmins.filter { $0.to == id && chats.contains($0.from) }.map(\.from)))"
        }
        for id in chats {
            let members = chatUsers.filter { $0.from == id && userIDs.contains($0.to) }.map(\.to)
            let admins = chatAdmins.filter { $0.from == id && userIDs.contains($0.to) }.map(\.to)
            let owned = messageChat.filter { $0.value == id && messages.contains($0.key) }.map(\.key)
            result.chats[id] = "\(ids(members))|\(ids(admins))|\(ids(owned))"
        }
        for id in messages {
            let replies = replyTo.filter { $0.value == id && messages.contains($0.key) }.map(\.key)
            let viewers = viewedBy.filter { $0.from == id && userIDs.contains($0.to) }.map(\.to)
            result.messages[id] = "\(messageValues[id]!.text)|\(messageValues[id]!.timestamp)|\(stored(chats, messageChat[id]))|\(stored(userIDs, messageAuthor[id]))|\(stored(attachments, messageAttachment[id]))|\(stored(messages, replyTo[id]))|\(ids(replies))|\(ids(viewers))"
        }
        for id in attachments {
            result.attachments[id] = stored(messages, messageAttachment.first { $0.value == id }?.key)
        }
        for (id, m) in messageArchive {
            result.archivedMessages[id] = "\(m.text)|\(m.author ?? "-")|\(m.replyTo ?? "-")|\(ids(m.replies))|\(ids(m.viewedBy))"
        }
        return result
    }
}

/// Everything observable, in order: context order of every type, link order of every
/// relation, and which entities have a save time. Compared between twins, not with the model.
struct OrderedObservation: Equatable {
    var lines: [String] = []

    init(_ context: Context) {
        for user in User.queryAll(with: .ids, in: context).resolve() {
            lines.append("user \(user.id) \(user.name) \(user.username ?? "-") \(user.$chats.ids!) \(user.$adminOf.ids!)")
        }
        for chat in Chat.queryAll(with: .ids, in: context).resolve() {
            lines.append("chat \(chat.id) \(chat.$users.ids!) \(chat.$admins.ids!) \(chat.$messages.ids!)")
        }
        for m in Message.queryAll(with: .ids, in: context).resolve() {
            let saved = context.updatedAt(of: Message.self, id: m.id) != nil
            lines.append("message \(m.id) \(m.$chat.id ?? "-") \(m.$author.id ?? "-") \(m.$replies.ids!) \(m.$viewedBy.ids!) \(saved)")
        }
        lines.append("attachments \(context.ids(of: Attachment.self))")
        lines.append("archived \(context.ids(of: Deleted<User>.self)) \(context.ids(of: Deleted<Message>.self))")
    }
}

/// Message queries answered through its indexes (ordered timestamp, full-text text, the
/// updatedAt metadata) against the same queries run as scans (an id-list source never uses
/// an index) and against plain Swift over the resolved messages.
enum MessageChecks {
    static func check(_ context: Context, using random: inout SplitMix64) {
        let all = Message.query(in: context).resolve()
        let ids = all.map(\.id)
        func scan(_ predicate: Predicate<Message>) -> QueryList<Message> { Message.query(ids, in: context).filter(predicate) }
        func indexed(_ predicate: Predicate<Message>) -> QueryList<Message> { Message.filter(predicate, in: context) }

        let t = Int.random(in: 0..<5, using: &random)
        #expect(indexed(\.timestamp >= t).resolve().map(\.id) == all.filter { $0.timestamp >= t }.map(\.id))
        #expect(indexed(\.timestamp < t).count() == all.filter { $0.timestamp < t }.count)
        let byTime = all.enumerated().sorted { ($0.element.timestamp, $0.offset) < ($1.element.timestamp, $1.offset) }.map(\.element.id)
        let byTimeDesc = all.enumerated().sorted { (-$0.element.timestamp, $0.offset) < (-$1.element.timestamp, $1.offset) }.map(\.element.id)
        #expect(Message.query(in: context).sorted(by: \.timestamp).resolve().map(\.id) == byTime)
        #expect(Message.query(in: context).sorted(by: \.timestamp.desc).resolve().map(\.id) == byTimeDesc)
        let limit = [0, 1, 2, 3, .max].randomElement(using: &random)!, offset = [0, 1, 3, .max].randomElement(using: &random)!
        let start = min(offset, byTime.count)
        #expect(Message.query(in: context).sorted(by: \.timestamp).limit(limit, offset: offset).resolve().map(\.id)
                == Array(byTime[start..<(start + min(limit, byTime.count - start))]))

        // Full text: a needle cut anywhere from a stored text, even inside a grapheme cluster.
        if let text = all.randomElement(using: &random)?.text, !text.isEmpty {
            let scalars = Array(text.unicodeScalars)
            let from = Int.random(in: 0..<scalars.count, using: &random), to = Int.random(in: from...scalars.count, using: &random)
            var needle = String.UnicodeScalarView()
            needle.append(contentsOf: scalars[from..<to])
            let query = String(needle)
            for caseSensitive in [false, true] {
                for predicate in [Predicate<Message>.string(\.text, contains: query, caseSensitive: caseSensitive),
                                  .string(\.text, hasPrefix: query, caseSensitive: caseSensitive),
                                  .string(\.text, hasSuffix: query, caseSensitive: caseSensitive)] {
                    #expect(indexed(predicate).resolve().map(\.id) == scan(predicate).resolve().map(\.id),
                            "needle \(query.unicodeScalars.map { String($0.value, radix: 16) })")
                }
            }
            #expect(indexed(.string(\.text, matches: query)).resolve().map(\.id) == scan(.string(\.text, matches: query)).resolve().map(\.id))
        }

        // updated(since:), count() and or() agree with resolve().
        #expect(Message.query(in: context).updated(since: .distantPast).count() == all.count)
        #expect(Message.query(in: context).updated(since: .distantFuture).count() == 0)
        let early = Message.filter(\.timestamp < t, in: context)
        let lateFirst = Message.filter(\.timestamp > t, in: context).sorted(by: \.timestamp).limit(1)
        let union = Set(early.resolve().map(\.id) + lateFirst.resolve().map(\.id))
        #expect(early.or(lateFirst).resolve().map(\.id) == ids.filter(union.contains))
        #expect(early.or(lateFirst).count() == union.count)
        #expect(early.or(Message.query(in: context).updated(since: .distantFuture)).resolve().map(\.id) == early.resolve().map(\.id))
    }
}
