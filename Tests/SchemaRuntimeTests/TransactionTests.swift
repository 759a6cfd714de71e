import CatalogModels
import Foundation
import SchemaRuntime
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
