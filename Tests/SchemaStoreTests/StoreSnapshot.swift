import ChatModels
import Foundation
import SchemaRuntime

/// Everything observable in a chat-domain graph: every stored entity with its relations as
/// ids in order, plus the answers of queries that run on each kind of index, as text.
/// Two graphs with equal snapshots are indistinguishable to queries.
struct StoreSnapshot: Equatable, CustomStringConvertible {
    let text: String

    /// `saveTimes`: include each message's `updatedAt` (equal only for the same writes).
    init(_ context: Context, saveTimes: Bool = true) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.relationEncodingStrategy = .keyedContainer
        var lines: [String] = []
        func add<Entity: EntityModelProtocol & Encodable>(_ type: Entity.Type) throws {
            for entity in Entity.queryAll(with: .ids, in: context).resolve() {
                lines.append("\(Entity.entityName) " + String(decoding: try encoder.encode(entity), as: UTF8.self))
            }
        }
        try add(User.self)
        try add(Chat.self)
        try add(Message.self)
        try add(Attachment.self)
        // Every link a message holds, to stored ids or not (one-way links to ids without a
        // row are data, which queries do not show).
        for message in Message.query(in: context).resolve() {
            guard let raw = message.asDeleted(in: context)?.entity else { continue }
            lines.append("links of Message " + String(decoding: try encoder.encode(raw), as: UTF8.self))
        }
        // Archives, with the links they keep (not their time: each side archives at its own).
        for archive in Deleted<Message>.query(in: context).resolve() {
            lines.append("archived Message " + String(decoding: try encoder.encode(archive.entity), as: UTF8.self))
        }
        lines.sort()
        // Index answers: ordered (timestamp), full text, hash (status), unique (username).
        lines.append("newest: " + Message.query(in: context).sorted(by: \.timestamp).resolve().map { "\($0.timestamp):\($0.id)" }.sorted().joined(separator: ","))
        lines.append("hello: " + Message.filter(.string(\.text, matches: "hello"), in: context).resolve().map(\.id).sorted().joined(separator: ","))
        lines.append("away: " + User.filter(\.status == .away, in: context).resolve().map(\.id).sorted().joined(separator: ","))
        lines.append("by username: " + User.query(in: context).resolve().compactMap(\.username).sorted().joined(separator: ","))
        guard saveTimes else {
            text = lines.joined(separator: "\n")
            return
        }
        let updated = Message.query(in: context).resolve().map { "\($0.id)@\(context.updatedAt(of: Message.self, id: $0.id)?.timeIntervalSinceReferenceDate ?? -1)" }
        lines.append("updatedAt: " + updated.sorted().joined(separator: ","))
        text = lines.joined(separator: "\n")
    }

    var description: String { text }
}

/// A fresh folder for one test's store files, removed when the test ends.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("schemastore-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String = "store.sqlite") -> URL { url.appendingPathComponent(name) }

    deinit { try? FileManager.default.removeItem(at: url) }
}
