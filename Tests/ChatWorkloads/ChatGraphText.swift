import ChatModels
import Foundation
import SchemaRuntime

/// Every stored entity of a chat graph with its links as ids, in the context's order, as
/// sorted-key JSON: two stores holding the same graph give the same text.
public enum ChatGraphText {
    public static func of(_ context: Context) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var parts: [String] = []
        parts.append(String(decoding: try encoder.encode(User.query(in: context).with(.ids).resolve()), as: UTF8.self))
        parts.append(String(decoding: try encoder.encode(Chat.query(in: context).with(.ids).resolve()), as: UTF8.self))
        parts.append(String(decoding: try encoder.encode(Message.query(in: context).with(.ids).resolve()), as: UTF8.self))
        parts.append(String(decoding: try encoder.encode(Attachment.query(in: context).with(.ids).resolve()), as: UTF8.self))
        return parts.joined(separator: "\n")
    }
}
