@_spi(SchemaStore) import SchemaRuntime

extension QueryList {
    /// Whether the query ranks by full-text relevance (a `matches` condition): BM25 scores
    /// depend on every stored row of the table, not only on the rows the query keeps.
    var ranksByRelevance: Bool {
        func ranks(_ structure: PredicateStructure) -> Bool {
            switch structure {
            case .text(_, let operation, _, _): operation == .matches
            case .and(let parts), .or(let parts): parts.contains(where: ranks)
            case .not(let inner): ranks(inner)
            case .comparison, .updated, .opaque: false
            }
        }
        return filterPredicate.map { ranks($0.structure) } ?? false
    }
}
