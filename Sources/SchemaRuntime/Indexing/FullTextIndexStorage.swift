/// The full-text index: an inverted index from token to the entities containing it, with
/// term frequencies and document lengths kept exact through updates and deletes, for BM25.
///
/// Insert and remove are O(t) for a document of t tokens; finding the documents that contain
/// every token of a query is O(smallest posting list × query tokens).
struct FullTextIndexStorage: Sendable {
    /// token -> entity -> occurrences.
    private(set) var postings: [String: [Int32: Int]] = [:]
    /// entity -> number of tokens.
    private(set) var lengths: [Int32: Int] = [:]
    private(set) var totalLength = 0

    var documentCount: Int { lengths.count }
    var averageLength: Double { lengths.isEmpty ? 0 : Double(totalLength) / Double(lengths.count) }

    mutating func insert(_ text: String, _ entity: Int32) {
        let tokens = TextTokenizer.tokens(text)
        lengths[entity] = tokens.count
        totalLength += tokens.count
        for token in tokens { postings[token, default: [:]][entity, default: 0] += 1 }
    }

    mutating func remove(_ text: String, _ entity: Int32) {
        guard let length = lengths.removeValue(forKey: entity) else { return }
        totalLength -= length
        for token in Set(TextTokenizer.tokens(text)) {
            postings[token]?[entity] = nil
            if postings[token]?.isEmpty == true { postings[token] = nil }
        }
    }

    /// Entities containing every one of `tokens` (all entities for no tokens).
    func entities(containingAll tokens: [String]) -> [Int32] {
        guard !tokens.isEmpty else { return Array(lengths.keys) }
        let lists = tokens.map { postings[$0] ?? [:] }.sorted { $0.count < $1.count }
        return lists[0].keys.filter { entity in lists.dropFirst().allSatisfy { $0[entity] != nil } }
    }

    func score(_ entity: Int32, tokens: [String]) -> Double {
        BM25.score(frequencies: tokens.map { postings[$0]?[entity] ?? 0 },
                   documentFrequencies: tokens.map { postings[$0]?.count ?? 0 },
                   length: lengths[entity] ?? 0, averageLength: averageLength, documents: documentCount)
    }
}
