import ChatModels
import Foundation
import SchemaRuntime

/// Everything observable in a chat-domain context: every stored entity with its relations as
/// ids, as canonical JSON. Two contexts with equal snapshots are indistinguishable to queries.
struct Snapshot: Equatable, CustomStringConvertible {
    let json: String

    init(_ context: Context) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        encoder.relationEncodingStrategy = .keyedContainer
        struct All: Encodable {
            var users: [User], chats: [Chat], messages: [Message], attachments: [Attachment]
        }
        let all = All(
            users: User.queryAll(with: .ids, in: context).resolve().sorted { $0.id < $1.id },
            chats: Chat.queryAll(with: .ids, in: context).resolve().sorted { $0.id < $1.id },
            messages: Message.queryAll(with: .ids, in: context).resolve().sorted { $0.id < $1.id },
            attachments: Attachment.queryAll(with: .ids, in: context).resolve().sorted { $0.id < $1.id }
        )
        json = String(decoding: try encoder.encode(all), as: UTF8.self)
    }

    var description: String { json }
}
