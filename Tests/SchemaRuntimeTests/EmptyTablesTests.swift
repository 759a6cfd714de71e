import ChatModels
import Foundation
@testable import SchemaRuntime
import Testing

/// New tables are copies of one empty table per type and kind (``EmptyTables``): each is
/// its own, whatever the contexts sharing that empty table write, on any thread.
@Suite struct EmptyTablesTests {
    /// Contexts of every kind write into their new tables from several threads at once; each
    /// sees exactly its own rows, and a table made afterwards is still empty.
    @Test func newTablesShareNothingWritten() async throws {
        let kinds: [(indexed: Bool, uniqueOnly: Bool, fewRows: Bool)] = [
            (true, false, false), (true, false, true), (true, true, true), (false, false, true),
        ]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<50 {
                        let kind = kinds[(task + round) % kinds.count]
                        var context = Context()
                        context.keepsIndexes = kind.indexed
                        context.keepsOnlyUniqueIndexes = kind.uniqueOnly
                        context.holdsFewRows = kind.fewRows
                        let id = "t\(task)-r\(round)"
                        try Chat(id: "c-\(id)", messages: .relation([Message(id: id, text: "hello \(id)").withAuthor()])).save(to: &context)
                        let messages = Message.query(in: context).resolve()
                        #expect(messages.map(\.id) == [id])
                        #expect(context.tableIfPresent(Message.self)?.rowCount == 1)
                    }
                }
            }
            try await group.waitForAll()
        }
        for kind in kinds {
            let table = EmptyTables.table(Message.self, indexed: kind.indexed, uniqueOnly: kind.uniqueOnly, fewRows: kind.fewRows)
            #expect(table.rowCount == 0 && table.keyCount == 0 && table.ids.count == 0)
            #expect(table.descriptors.count == (!kind.indexed ? 0 : kind.uniqueOnly ? Message.indexes.filter(\.isUnique).count : Message.indexes.count))
        }
    }
}
