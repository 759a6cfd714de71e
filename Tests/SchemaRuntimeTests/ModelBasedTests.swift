import ChatModels
import DeterministicRandom
import SchemaRuntime
import Testing

/// Random sequences of saves, fragment saves, relation changes, deletes and rolled-back
/// transactions on the chat domain, checked after every step against `ReferenceModel`, a
/// deliberately naive model: sets of stored ids and sets of links.
@Suite struct ModelBasedTests {
    @Test(arguments: 0..<40)
    func randomOperationsMatchTheReferenceModel(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var context = Context()
        var model = ReferenceModel()
        for step in 0..<80 {
            let operation = Operation.random(using: &random)
            if case .rolledBack(let inner) = operation {
                struct Abort: Error {}
                var attempt = context
                _ = try? attempt.transaction { context in
                    for op in inner { try op.apply(to: &context) }
                    throw Abort()
                }
                context = attempt
            } else {
                do {
                    try operation.apply(to: &context)
                    model.apply(operation)
                } catch is UniqueConstraintViolation {
                    // The email index throws; the model predicts exactly when.
                    #expect(model.wouldViolateEmail(operation), "seed \(seed), step \(step): unexpected violation \(operation)")
                }
            }
            ReferenceModel.checkIndexes(context)
            let observed = ReferenceModel.Observation(context)
            let expected = model.observation
            #expect(observed == expected, "seed \(seed), step \(step): \(operation)")
            if observed != expected { return }
        }
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
    case saveChatMessages(String, messages: [String])
    case saveMessage(String, chat: String?, author: String?, attachment: OneChange, replyTo: OneChange, viewedBy: ListChange)
    case delete(kind: Int, id: String)
    case rolledBack([Operation])
    /// `context.compact()`: nothing observable may change.
    case compact

    static let ids = ["a", "b", "c", "d"]


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
        switch Int.random(in: 0..<12, using: &random) {
        case 0, 1:
            let fields = UserFields(username: [nil, "u1", "u2"].randomElement(using: &random)!, email: [nil, nil, "e1", "e2"].randomElement(using: &random)!,
                                    isCurrent: [nil, nil, true].randomElement(using: &random)!, age: Int.random(in: 0..<4, using: &random))
            return .saveUser(id(), name: id(), bio: Bool.random(using: &random) ? id() : nil, fields: fields, fragment: Bool.random(using: &random))
        case 2, 3: return .saveChat(id(), users: list(), admins: list())
        case 4: return .saveChatMessages(id(), messages: ids.filter { _ in Bool.random(using: &random) })
        case 5, 6, 7:
            return .saveMessage(id(), chat: Bool.random(using: &random) ? id() : nil, author: Bool.random(using: &random) ? id() : nil,
                                attachment: one(), replyTo: one(), viewedBy: list())
        case 8, 9: return .delete(kind: Int.random(in: 0..<4, using: &random), id: id())
        case 10: return .compact
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
        case let .saveChatMessages(id, messages):
            try Chat(id: id, messages: .relation(messages.map { Message(id: $0, text: "from chat") })).save(to: &context, options: .fragment)
        case let .saveMessage(id, chat, author, attachment, replyTo, viewedBy):
            var message = Message(id: id, text: "m", viewedBy: Self.many(viewedBy))
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
            guard !wouldViolateEmail(operation) else { return }
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
        case let .saveChatMessages(id, list):
            chats.insert(id)
            messages.formUnion(list)
            for (message, chat) in messageChat where chat == id && !list.contains(message) { messageChat[message] = nil }
            for message in list { messageChat[message] = id }
        case let .saveMessage(id, chat, author, attachment, parent, viewed):
            messages.insert(id)
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

    /// Whether saving this user would collide on the email index (after the username upsert).
    func wouldViolateEmail(_ operation: Operation) -> Bool {
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
                messages[m.id] = "\(m.$chat.id ?? "-")|\(m.$author.id ?? "-")|\(m.$attachment.id ?? "-")|\(m.$replyTo.id ?? "-")|\(Self.ids(m.$replies.ids!))|\(Self.ids(m.$viewedBy.ids!))"
            }
            for a in Attachment.queryAll(with: .ids, in: context).resolve() {
                attachments[a.id] = a.$message.id ?? "-"
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
            result.messages[id] = "\(stored(chats, messageChat[id]))|\(stored(userIDs, messageAuthor[id]))|\(stored(attachments, messageAttachment[id]))|\(stored(messages, replyTo[id]))|\(ids(replies))|\(ids(viewers))"
        }
        for id in attachments {
            result.attachments[id] = stored(messages, messageAttachment.first { $0.value == id }?.key)
        }
        return result
    }
}
