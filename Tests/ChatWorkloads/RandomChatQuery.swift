import ChatModels
import DeterministicRandom
import Foundation
import SchemaRuntime

/// Random queries over the chat schema, each answered as text, so that two stores fed the
/// same writes can be compared answer by answer, order included: filters SQL answers exactly,
/// filters it only narrows (text conditions), sorts, limits, offsets, counts, aggregates,
/// grouping, pages, relation filters, nested queries, ranked full text, save times.
public enum RandomChatQuery {
    public typealias Answer = @Sendable (Context) -> String

    /// A random query over the chat schema, by name, and how to read its answer.
    public static func next(_ random: inout SplitMix64) -> (name: String, answer: Answer) {
        // 0 is frequent: the default timestamp and age of fragments; boundaries must be hit.
        let n = Bool.random(using: &random) ? 0 : Int.random(in: 0..<1000, using: &random)
        let k = Int.random(in: 0..<8, using: &random)
        let o = Int.random(in: 0..<4, using: &random)
        let word = ["hello", "bye", "reply", "with", "h", "", "HeLLo 1", "E 9"][Int.random(in: 0..<8, using: &random)]
        let user = "u\(Int.random(in: 0..<6, using: &random))"
        let chat = "c\(Int.random(in: 0..<4, using: &random))"
        let message = "m\(Int.random(in: 0..<30, using: &random))"
        let age = Bool.random(using: &random) ? 0 : Int.random(in: 0..<90, using: &random)
        switch Int.random(in: 0..<28, using: &random) {
        case 27:
            return ("count of messages matching \(word), alone and timestamp > \(n)", { c in
                let matching = Message.query(in: c).filter(.string(\.text, matches: word))
                return "\(matching.count()) \(matching.filter(\.timestamp > n).count())"
            })
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
}
