import Foundation

// Generated types are plain structs: extend them in ordinary Swift files.
extension Product {
    /// The price formatted with its currency code, e.g. "12.50 EUR".
    public var formattedPrice: String {
        "\(price) \(currency.rawValue)"
    }

    /// Whether the product is still sold at `date`.
    public func isAvailable(at date: Date = Date()) -> Bool {
        discontinuedAt.map { $0 > date } ?? true
    }
}
