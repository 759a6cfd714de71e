import ChatModels
import Foundation
import SchemaRuntime

/// Numbers the commits of concurrent writers so that a test can replay them in commit order.
///
/// A marked write reads the counter (chat "sequence", its title the last number), stores the
/// next number, and saves attachment "a<number>" naming the writer and the write. Two writes
/// that ran at once on the same state would store the same number, and one marker would be
/// missing: the markers of a store whose writes are serial are exactly 1...n.
public enum CommitMarker {
    /// The number of the last marked commit `context` holds (0 for none).
    public static func last(in context: Context) -> Int {
        context.find(Chat.self, id: "sequence")?.title.flatMap { Int($0) } ?? 0
    }

    /// Marks the write running on `context` as commit `number`, made by write `index` of `writer`.
    public static func save(_ number: Int, writer: Int, index: Int, to context: inout Context) throws {
        try Chat(id: "sequence", title: "\(number)").save(to: &context)
        try Attachment(id: "a\(number)", kind: .file, url: URL(string: "write:\(writer)/\(index)")).save(to: &context)
    }

    /// The writer and write of each marked commit `context` holds, by commit number.
    public static func commits(in context: Context) -> [Int: (writer: Int, index: Int)] {
        var commits: [Int: (writer: Int, index: Int)] = [:]
        for attachment in Attachment.query(in: context).resolve() {
            guard attachment.id.hasPrefix("a"), let number = Int(attachment.id.dropFirst()),
                  let parts = attachment.url?.absoluteString.dropFirst("write:".count).split(separator: "/"), parts.count == 2,
                  let writer = Int(parts[0]), let index = Int(parts[1]) else { continue }
            commits[number] = (writer, index)
        }
        return commits
    }
}
