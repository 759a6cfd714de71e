import CatalogModels
import DeterministicRandom
import Foundation
import SchemaRuntime
import Testing

/// Throwing hooks and unique indexes in the middle of saves, on the catalog domain.
///
/// Context `attempted` runs every random operation; some embed a review whose `willSave`
/// throws (rating outside 1...5) after other entities and links of the same save were
/// written, some collide on a unique index (`sku`, `name`), some would leave a review without
/// its required product (checked when the save ends, after everything else was written). Context `replayed` runs only the
/// operations that succeeded, and is compacted after every step. After each step both must
/// be indistinguishable, in order: a rolled-back save leaves nothing behind (rows, links,
/// interned ids, reference counts), which the operations that follow would reveal.
@Suite struct RollbackTwinTests {
    enum Op {
        case category(id: Int, name: String, position: Int, parent: Int?, children: [Int]?)
        case product(id: Int, sku: String, price: Int, category: Int?, reviews: [(id: Int, rating: Int)], related: [Int]?)
        case review(id: Int, rating: Int, product: Int?)
        case delete(kind: Int, id: Int)
        case batch([Op])

        static func uuid(_ n: Int) -> UUID { UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", n))! }

        static func random(_ random: inout SplitMix64, depth: Int = 0) -> Op {
            func pick(_ range: Range<Int>) -> Int { Int.random(in: range, using: &random) }
            func maybe(_ range: Range<Int>) -> Int? { Bool.random(using: &random) ? pick(range) : nil }
            func ids(_ range: Range<Int>) -> [Int]? {
                Bool.random(using: &random) ? nil : range.filter { _ in Bool.random(using: &random) }
            }
            switch pick(0..<(depth == 0 ? 9 : 8)) {
            case 0, 1: return .category(id: pick(0..<4), name: ["a", "b", "c", "d", "e"][pick(0..<5)], position: pick(0..<3),
                                        parent: maybe(0..<4), children: ids(0..<4))
            case 2, 3, 4:
                let reviews = (0..<pick(0..<3)).map { _ in (id: pick(0..<6), rating: pick(0..<7)) }
                return .product(id: pick(0..<4), sku: ["s1", "s2", "s3", "s4", "s5"][pick(0..<5)], price: pick(0..<5),
                                category: maybe(0..<4), reviews: reviews, related: ids(0..<4))
            case 5: return .review(id: pick(0..<6), rating: pick(0..<7), product: maybe(0..<4))
            case 6, 7: return .delete(kind: pick(0..<3), id: pick(0..<6))
            default: return .batch((0..<pick(2..<4)).map { _ in Op.random(&random, depth: 1) })
            }
        }

        func apply(to context: inout Context) throws {
            switch self {
            case let .category(id, name, position, parent, children):
                var category = Category(id: id, name: name, position: position)
                if let parent { category.$parent = .id(parent) }
                if let children { category.$children = .ids(children) }
                try category.save(to: &context)
            case let .product(id, sku, price, category, reviews, related):
                var product = Product(id: Self.uuid(id), sku: sku, title: "t\(price)", price: Decimal(price))
                if let category { product.$category = .id(category) }
                // Saved after the product's row: a throwing hook here undoes a partial save.
                if !reviews.isEmpty {
                    product.$reviews = .relation(reviews.map {
                        Review(id: Self.uuid(100 + $0.id), rating: $0.rating, body: "", createdAt: Date(timeIntervalSince1970: 0))
                    })
                }
                if let related { product.$related = .ids(related.map(Self.uuid)) }
                try product.save(to: &context)
            case let .review(id, rating, product):
                var review = Review(id: Self.uuid(100 + id), rating: rating, body: "", createdAt: Date(timeIntervalSince1970: 0))
                if let product { review.$product = .id(Self.uuid(product)) }
                try review.save(to: &context)
            case let .delete(kind, id):
                switch kind {
                case 0: try Category(id: id, name: "").delete(from: &context)
                case 1: try Product(id: Self.uuid(id), sku: "", title: "", price: 0).delete(from: &context)
                default: try Review(id: Self.uuid(100 + id), rating: 1, body: "", createdAt: Date()).delete(from: &context)
                }
            case .batch(let operations):
                try context.transaction { context in
                    for operation in operations { try operation.apply(to: &context) }
                }
            }
        }
    }

    /// Everything observable, in order.
    static func observation(_ context: Context) -> [String] {
        var lines: [String] = []
        for category in Category.queryAll(with: .ids, in: context).resolve() {
            lines.append("category \(category.id) \(category.name) \(category.position) \(category.$parent.id.map(String.init) ?? "-") \(category.$children.ids!) \(category.$products.ids!.count)")
        }
        for product in Product.queryAll(with: .ids, in: context).resolve() {
            lines.append("product \(product.id) \(product.sku) \(product.price) \(product.$category.id.map(String.init) ?? "-") \(product.$reviews.ids!) \(product.$related.ids!)")
        }
        for review in Review.queryAll(with: .ids, in: context).resolve() {
            lines.append("review \(review.id) \(review.rating) \(review.$product.id?.uuidString ?? "-")")
        }
        // Index answers, in order: unique lookups, ordered ranges and sorts.
        for sku in ["s1", "s2", "s3", "s4", "s5"] { lines.append("sku \(sku) \(Product.filter(\.sku == sku, in: context).resolve().map(\.id))") }
        lines.append("price>=2 \(Product.filter(\.price >= 2, in: context).resolve().map(\.id))")
        lines.append("by rating \(Review.query(in: context).sorted(by: \.rating.desc, \.createdAt.desc).resolve().map(\.id))")
        return lines
    }

    /// 30 seeds × 100 steps in CI.
    @Test(arguments: 0..<30)
    func rolledBackSavesLeaveNoTrace(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var attempted = Context(), replayed = Context()
        var failures = 0
        for step in 0..<100 {
            let operation = Op.random(&random)
            var succeeded = true
            do {
                try operation.apply(to: &attempted)
            } catch is CatalogError {
                succeeded = false
            } catch is UniqueConstraintViolation {
                succeeded = false
            } catch is RequiredRelationViolation {
                // A review saved without its product, or left without one by a product's save.
                succeeded = false
            }
            if succeeded { try operation.apply(to: &replayed) } else { failures += 1 }
            replayed.compact()
            let expected = Self.observation(replayed), observed = Self.observation(attempted)
            #expect(observed == expected, "seed \(seed), step \(step): \(operation)")
            if observed != expected { return }
        }
        #expect(failures > 5, "the random operations should include failing saves")
    }
}
