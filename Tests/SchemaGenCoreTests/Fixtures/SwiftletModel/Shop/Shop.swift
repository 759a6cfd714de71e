// A realistic model set: many fields of every kind, relations of every shape, every index
// kind, merge strategies, initializers, methods and a namespace.
import Foundation
import SwiftletModel

public enum Currency: String, Codable, Sendable, CaseIterable {
    case eur = "EUR", usd = "USD", gbp = "GBP"
}

public enum Priority: Int, Codable, Sendable {
    case low = 1
    case normal = 5
    case high = 10
}

/// A product in the catalog.
@EntityModel
public struct Product: Codable, Sendable {
    @Index<Self>(\.price) private static var priceIndex
    @Index<Self>(\.category, \.price) private static var categoryPriceIndex
    @HashIndex<Self>(\.isAvailable) var availableIndex
    @Unique<Self>(\.sku) private static var skuIndex
    @FullTextIndex<Self>(\.name, \.summary) private static var searchIndex

    public let id: UUID
    public var sku: String
    public var name: String
    public var summary: String = ""
    public var price: Decimal
    public var currency: Currency = .eur
    public var category: String
    public var isAvailable: Bool = true
    public var stock: Int = 0
    public var weight: Double? = nil
    public var rating: Float = 0
    public var tags: [String] = []
    public var attributes: [String: String] = [:]
    public var releasedAt: Date?
    public var image: URL?
    public var thumbnail: Data?
    public var dimensions: Dimensions?

    @Relationship(deleteRule: .cascade, inverse: \.product)
    public var reviews: [Review]?

    @Relationship(inverse: \.products)
    public var supplier: Supplier?

    @Relationship
    public var related: [Product]?

    public static var defaultMergeStrategy: MergeStrategy<Self> { .replace }

    public static var fragmentMergeStrategy: MergeStrategy<Self> {
        MergeStrategy(.patch(\.weight, \.releasedAt), .append(\.tags))
    }

    public var isInStock: Bool { stock > 0 }

    public func priceLabel() -> String { "\(price) \(currency.rawValue)" }

    public init(sku: String, name: String, price: Decimal, category: String) {
        self.init(id: UUID(), sku: sku, name: name, price: price, category: category)
    }
}

public struct Dimensions: Codable, Hashable, Sendable {
    public var width: Double
    public var height: Double
}

@EntityModel
public struct Review: Codable, Sendable {
    @Index<Self>(\.createdAt) private static var createdIndex

    public let id: Int
    public var stars: Int
    public var text: String?
    public var priority: Priority = .normal
    public var createdAt: Date

    @Relationship(.required, inverse: \.reviews)
    public var product: Product?

    static var defaultMergeStrategy: MergeStrategy<Self> {
        .lastWriteWins(.replace, comparedBy: \.createdAt)
    }
}

extension Catalog {
    @EntityModel
    public struct Supplier: Codable, Sendable {
        public let id: String
        public var name: String
        public var contact: String? = nil
        public var createdAt: Date

        @Relationship(inverse: \.supplier)
        public var products: [Product]?
    }

    public static let version = 2
}

public enum Catalog {}
