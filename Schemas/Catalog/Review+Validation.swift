import SchemaRuntime

/// Errors the catalog's hooks throw.
public enum CatalogError: Error, Equatable {
    case ratingOutOfRange(Int)
}

extension Review {
    /// Ratings are 1 to 5 stars. Throwing here cancels the whole save, including everything
    /// saved with the review, and leaves the context as it was.
    public mutating func willSave(to context: inout Context) throws {
        guard (1...5).contains(rating) else { throw CatalogError.ratingOutOfRange(rating) }
    }
}
