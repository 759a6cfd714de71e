import CatalogModels
import ChatModels
import Foundation
@testable import SchemaRuntime
import Testing

/// A throwing save or delete leaves the context exactly as it was; contexts are values.
@Suite struct TransactionTests {
    private func catalog() throws -> (Context, Product) {
        var context = Context()
        let product = Product(id: UUID(), sku: "P1", title: "Kettle", price: 30,
                              category: .relation(Category(id: 1, name: "Kitchen")),
                              reviews: .relation([Review(id: UUID(), rating: 4, body: "ok", createdAt: Date(timeIntervalSince1970: 0))]))
        try product.save(to: &context)
        return (context, product)
    }

    private func state(_ context: Context) -> String {
        let products = Product.queryAll(with: .ids, in: context).resolve()
        let reviews = Review.queryAll(with: .ids, in: context).resolve()
        let categories = Category.queryAll(with: .ids, in: context).resolve()
        return "\(products.map { ($0.id, $0.title, $0.$reviews.ids ?? [], $0.$category.id ?? -1) })"
            + "\(reviews.map { ($0.id, $0.body, $0.$product.id as Any) })\(categories.map { ($0.id, $0.$products.ids ?? []) })"
    }

    @Test func aThrowingHookRollsBackEverythingSavedWithIt() throws {
        var (context, product) = try catalog()
        let before = state(context)
        var changed = product
        changed.title = "Renamed"
        changed.$category = .relation(Category(id: 2, name: "Garden"))
        changed.$reviews = .appending(relation: [
            Review(id: UUID(), rating: 5, body: "great", createdAt: Date()),
            Review(id: UUID(), rating: 9, body: "invalid", createdAt: Date()),
        ])
        #expect(throws: CatalogError.ratingOutOfRange(9)) { try changed.save(to: &context) }
        #expect(state(context) == before)
        #expect(context.count(of: Category.self) == 1)
        #expect(context.count(of: Review.self) == 1)
    }

    @Test func aThrowingBatchSaveKeepsNothing() throws {
        var (context, product) = try catalog()
        let before = state(context)
        let reviews = [5, 3, 0].map { Review(id: UUID(), rating: $0, body: "b", createdAt: Date(), product: .id(product.id)) }
        #expect(throws: CatalogError.self) { try reviews.save(to: &context) }
        #expect(state(context) == before)
    }

    @Test func copiesAreIndependentSnapshots() throws {
        let (original, product) = try catalog()
        var copy = original
        try product.delete(from: &copy)
        #expect(copy.count(of: Product.self) == 0)
        #expect(copy.count(of: Review.self) == 0) // cascade
        #expect(original.count(of: Product.self) == 1)
        #expect(original.count(of: Review.self) == 1)
        #expect(Category.query(1, in: original).id(\.$products).resolve()?.$products.ids == [product.id])
        #expect(Category.query(1, in: copy).id(\.$products).resolve()?.$products.ids == [])
    }

    @Test func explicitTransactionsNestAndRollBackTheirOwnChanges() throws {
        var (context, product) = try catalog()
        try context.transaction { context in
            var renamed = product
            renamed.title = "Outer"
            try renamed.save(to: &context)
            // An inner failure that the caller handles undoes only the inner changes.
            do {
                try context.transaction { context in
                    var inner = product
                    inner.title = "Inner"
                    try inner.save(to: &context)
                    throw CatalogError.ratingOutOfRange(0)
                }
            } catch {}
        }
        #expect(context.find(Product.self, id: product.id)?.title == "Outer")
    }
}

/// `Context.compact()` frees the slots of deleted ids and changes nothing observable.
@Suite struct CompactionTests {
    @Test func reclaimsDeletedIDsAndKeepsOrderLinksAndIndexes() throws {
        var context = Context()
        try Chat(id: "c", messages: .relation((0..<1000).map { Message(id: "m\($0)", text: "word\($0 % 7) text", timestamp: $0).withAuthor() })).save(to: &context)
        try Message(id: "pending", text: "links to an id not saved yet", author: .id("later"), chat: .id("c")).save(to: &context)
        for index in 0..<1000 where index % 10 != 0 { try Message(id: "m\(index)", text: "").delete(from: &context) }
        let order = Message.query(in: context).resolve().map(\.id)
        let keysBefore = try #require(context.tableIfPresent(Message.self)).keyCount

        context.compact()

        let table = try #require(context.tableIfPresent(Message.self))
        #expect(keysBefore == 1001 && table.keyCount == 101)
        #expect(Message.query(in: context).resolve().map(\.id) == order)
        #expect(Chat.query("c", in: context).id(\.$messages).resolve()?.$messages.ids == order)
        #expect(Message.filter(\.timestamp >= 990, in: context).resolve().map(\.id) == ["m990"])
        #expect(Message.filter(.string(\.text, matches: "word0"), in: context).resolve().count == Set(order.filter { $0 != "pending" }.filter { Int($0.dropFirst())! % 7 == 0 }).count)
        // The link to a user not saved yet survives and resolves once the user is saved.
        try User(id: "later", name: "Later").save(to: &context)
        #expect(Message.query("pending", in: context).with(\.$author).resolve()?.author?.name == "Later")
        // New saves after compaction get fresh keys at the end of context order.
        try Message(id: "new", text: "n").withRequiredLinks().save(to: &context)
        #expect(Message.query(in: context).resolve().last?.id == "new")
    }

    /// #27: compact() inside a transaction does nothing (it would renumber the keys the undo
    /// log refers to), so a rollback after it still restores the context exactly.
    @Test func compactingInsideATransactionWaitsForItsEnd() throws {
        var context = Context()
        try Chat(id: "c", messages: .relation((0..<10).map { Message(id: "m\($0)", text: "t").withAuthor() })).save(to: &context)
        for index in 0..<10 where index % 2 == 0 { try Message(id: "m\(index)", text: "").delete(from: &context) }
        let keysBefore = try #require(context.tableIfPresent(Message.self)).keyCount
        let before = try Snapshot(context)
        struct Abort: Error {}
        #expect(throws: Abort.self) {
            try context.transaction { context in
                try Message(id: "m1", text: "").delete(from: &context)
                context.compact()
                throw Abort()
            }
        }
        #expect(try Snapshot(context) == before)
        #expect(context.tableIfPresent(Message.self)?.keyCount == keysBefore)
        try context.transaction { $0.compact() }
        context.compact()
        #expect(context.tableIfPresent(Message.self)?.keyCount ?? 0 < keysBefore)
        #expect(try Snapshot(context) == before)
    }
}

/// What a transaction keeps only for rollback is dropped when the outermost one commits:
/// the row undo records, and the tombstones of link lists once they are half a list.
@Suite struct CommitCleanupTests {
    @Test func commitDropsRowUndoAndCompactsSparseLinkLists() throws {
        var context = Context()
        try Chat(id: "c", messages: .relation((0..<200).map { Message(id: "m\($0)", text: "t").withAuthor() })).save(to: &context)
        #expect(try #require(context.tableIfPresent(Message.self)).rowUndo.isEmpty)
        // Deleting messages one by one removes them from the chat's list in place.
        for index in 0..<150 { try Message(id: "m\(index)", text: "").delete(from: &context) }
        let chats = try #require(context.tableIfPresent(Chat.self))
        let key = try #require(context.key(of: "c", Chat.self))
        let column = Chat.relation(for: \Chat.$messages).slot.column
        #expect(chats.toManyLinks(column, key).tombstones == 0)
        #expect(chats.toManyLinks(column, key).keys.count == 50)
        #expect(chats.rowUndo.isEmpty && context.tableIfPresent(Message.self)?.rowUndo.isEmpty == true)
        // Inside an open transaction the records are still there, for rollback.
        try context.transaction { context in
            try Message(id: "m150", text: "").delete(from: &context)
            #expect(context.tableIfPresent(Message.self)?.rowUndo.count == 1)
            #expect(context.tableIfPresent(Message.self)?.hasRowUndo == true)
        }
        #expect(context.tableIfPresent(Message.self)?.rowUndo.isEmpty == true)
        #expect(context.tableIfPresent(Message.self)?.hasRowUndo == false)
        // A rolled-back transaction pops its records, and the count with them.
        _ = try? context.transaction { context in
            try Message(id: "m151", text: "").delete(from: &context)
            try Message(id: "m152", text: "").delete(from: &context)
            #expect(context.tableIfPresent(Message.self)?.rowUndoCount == 2)
            throw CancellationError()
        }
        let messages = try #require(context.tableIfPresent(Message.self))
        #expect(messages.rowUndoCount == messages.rowUndo.count && !messages.hasRowUndo)
        // A nested transaction rolled back pops its records from the outer one's log.
        try context.transaction { context in
            try Message(id: "m153", text: "").delete(from: &context)
            _ = try? context.transaction { context in
                try Message(id: "m154", text: "").delete(from: &context)
                throw CancellationError()
            }
            let messages = try #require(context.tableIfPresent(Message.self))
            #expect(messages.rowUndo.count == 1 && messages.rowUndoCount == 1)
        }
        #expect(context.hasRow(Message.self, try #require(context.key(of: "m151", Message.self))))
    }
}
