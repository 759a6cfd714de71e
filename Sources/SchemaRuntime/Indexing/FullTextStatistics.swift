/// What BM25 ranking needs from a whole table, for ranking in a context that holds only part
/// of it (a store reading on demand, whose SQL keeps the table's full-text postings): how
/// many entities are indexed, their total length in tokens, and how many contain each query
/// token. Each entity's own counts come from its text, tokenized as the index does, so
/// scores equal the ones a resident full-text index gives.
@_spi(SchemaStore)
public struct FullTextStatistics: Sendable, Hashable {
    public var documents: Int
    public var totalLength: Int
    /// For each query token: the number of indexed entities containing it.
    public var documentFrequency: [String: Int]

    public init(documents: Int, totalLength: Int, documentFrequency: [String: Int]) {
        self.documents = documents
        self.totalLength = totalLength
        self.documentFrequency = documentFrequency
    }

    /// The BM25 score of each text for the query `tokens`, with these statistics.
    func scores(of texts: [String], tokens: [String]) -> [Double] {
        let idfs = tokens.map { BM25.idf(documentFrequency: documentFrequency[$0] ?? 0, documents: documents) }
        let average = documents == 0 ? 0 : Double(totalLength) / Double(documents)
        return texts.map { text in
            let (terms, length) = FullTextIndexStorage.termCounts(text)
            var score = 0.0
            for (token, idf) in zip(tokens, idfs) {
                guard let frequency = terms.first(where: { $0.0 == token })?.1, frequency > 0 else { continue }
                score += BM25.term(idf: idf, frequency: Int(frequency), length: length, averageLength: average)
            }
            return score
        }
    }

    /// The distinct tokens of `text` with their counts, in first-occurrence order, and its
    /// length in tokens: what a full-text index records for it.
    public static func terms(of text: String) -> (terms: [(String, Int32)], length: Int) {
        FullTextIndexStorage.termCounts(text)
    }
}

extension Context {
    /// Statistics of the whole table of `type`, for ranking full-text matches in this
    /// context, which holds part of it.
    @_spi(SchemaStore)
    public mutating func setFullTextStatistics<Entity: EntityModelProtocol>(_ statistics: FullTextStatistics, for type: Entity.Type) {
        fullTextStatistics[ObjectIdentifier(type)] = statistics
    }
}

@_spi(SchemaStore)
extension IndexDescriptor {
    /// For a full-text index: its fields, in order.
    public var textKeyPaths: [AnyKeyPath] { textFields.map(\.keyPath) }

    /// For a full-text index: the text it indexes for `entity`.
    public func indexedText(of entity: Entity) -> String { text(of: entity) }

    public var isFullText: Bool { if case .fullText = kind { true } else { false } }
}
