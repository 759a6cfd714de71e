import BenchModels
import Foundation
import SchemaRuntime

/// The same workload kept by hand in plain dictionaries: the floor the runtime is compared
/// with. Links are kept both ways by hand and the full-text index is exact (token -> id ->
/// count, so a removal is O(1)); there is no ordered timestamp index, so the floor's delete
/// does less work than the runtime's. Results are built as the same generated values the
/// runtime's queries return.
struct FloorStore {
    var users: [Int: User] = [:]
    var chats: [Int: Chat] = [:]
    var messages: [Int: Message] = [:]
    var chatUsers: [Int: [Int]] = [:]
    var userChats: [Int: [Int]] = [:]
    var chatMessages: [Int: [Int]] = [:]
    var messageChat: [Int: Int] = [:]
    var messageAuthor: [Int: Int] = [:]
    var postings: [String: [Int: Int32]] = [:]
    var lengths: [Int: Int] = [:]
    var totalLength = 0

    init(users: [User], chats: [Chat]) {
        for user in users { self.users[user.id] = user }
        for var chat in chats {
            let members = chat.$users.ids ?? []
            chatUsers[chat.id] = members
            for user in members { userChats[user, default: []].append(chat.id) }
            var linked: [Int] = []
            for var message in chat.messages ?? [] {
                linked.append(message.id)
                messageChat[message.id] = chat.id
                messageAuthor[message.id] = message.$author.id
                let tokens = TextTokenizer.tokens(message.text)
                lengths[message.id] = tokens.count
                totalLength += tokens.count
                for token in tokens { postings[token, default: [:]][message.id, default: 0] += 1 }
                message.normalize()
                messages[message.id] = message
            }
            chatMessages[chat.id] = linked
            chat.normalize()
            self.chats[chat.id] = chat
        }
    }

    /// Chats with their messages (each with its author) and users.
    func nested(_ ids: [Int]) -> [Chat] {
        ids.compactMap { id in
            guard var chat = chats[id] else { return nil }
            chat.$messages = .relation((chatMessages[id] ?? []).map { messageID in
                var message = messages[messageID]!
                if let author = messageAuthor[messageID].flatMap({ users[$0] }) { message.$author = .relation(author) }
                return message
            })
            chat.$users = .relation((chatUsers[id] ?? []).compactMap { users[$0] })
            return chat
        }
    }

    /// Messages containing every word of `query`, by BM25 score (ties by id), as rows.
    func matching(_ query: String) -> [Message] {
        let tokens = TextTokenizer.tokens(query)
        let lists = tokens.map { postings[$0] ?? [:] }
        guard let smallest = lists.min(by: { $0.count < $1.count }) else { return [] }
        let documents = messages.count
        let average = Double(totalLength) / Double(max(documents, 1))
        var scored: [(id: Int, score: Double)] = []
        for (id, _) in smallest where lists.allSatisfy({ $0[id] != nil }) {
            var score = 0.0
            for list in lists {
                let idf = log(1 + (Double(documents - list.count) + 0.5) / (Double(list.count) + 0.5))
                let tf = Double(list[id]!)
                score += idf * tf * (1.2 + 1) / (tf + 1.2 * (1 - 0.75 + 0.75 * Double(lengths[id]!) / max(average, 1)))
            }
            scored.append((id, score))
        }
        scored.sort { $0.score != $1.score ? $0.score > $1.score : $0.id < $1.id }
        return scored.map { messages[$0.id]! }
    }

    /// Deletes chats and, cascading, their messages, with every link and index entry.
    mutating func deleteChats(_ ids: some Sequence<Int>) {
        for id in ids {
            guard chats.removeValue(forKey: id) != nil else { continue }
            for user in chatUsers.removeValue(forKey: id) ?? [] {
                userChats[user]?.removeAll { $0 == id }
            }
            for messageID in chatMessages.removeValue(forKey: id) ?? [] {
                guard let message = messages.removeValue(forKey: messageID) else { continue }
                messageChat[messageID] = nil
                messageAuthor[messageID] = nil
                totalLength -= lengths.removeValue(forKey: messageID) ?? 0
                for token in Set(TextTokenizer.tokens(message.text)) {
                    postings[token]?[messageID] = nil
                }
            }
        }
    }
}
