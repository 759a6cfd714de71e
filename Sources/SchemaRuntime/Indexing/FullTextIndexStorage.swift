/// The full-text index: an inverted index from token to the entities containing it, with
/// term frequencies and document lengths kept exact through updates and deletes, for BM25.
///
/// Each token's posting list is a ``ChunkedKeyList`` sorted by entity key, so the usual case
/// (new entities get new, larger keys) appends, and removing an entity from a list of any
/// length shifts at most one chunk. Insert and remove are O(t (log p + B)) for a document of
/// t distinct tokens, posting lists of length p and chunk size B; finding the documents
/// containing every query token is O(s × k × log p) for the shortest list's length s and k
/// tokens.
@usableFromInline
struct FullTextIndexStorage: Sendable {
    /// Entities containing a token, ascending, with the token's count in each.
    typealias PostingList = ChunkedKeyList<Int32>

    @usableFromInline init() {}

    /// Sharded like a table's id map: a write to an index shared with a snapshot (a reader's
    /// context, an observer's) copies one shard of the token directory, not all of it.
    private(set) var postings = ShardedDictionary<String, PostingList>()
    /// key -> number of tokens, or -1 when the entity is not indexed. Chunked like a table's
    /// columns, so a write to an index shared with a snapshot copies one chunk of it.
    private var lengths = ChunkedArray<Int32>()
    private(set) var documentCount = 0
    private(set) var totalLength = 0

    var averageLength: Double { documentCount == 0 ? 0 : Double(totalLength) / Double(documentCount) }

    func length(of entity: Int32) -> Int? {
        Int(entity) < lengths.count && lengths[Int(entity)] >= 0 ? Int(lengths[Int(entity)]) : nil
    }

    /// Distinct tokens of `text` with their counts, in first-occurrence order.
    /// Short texts (the usual case) count by linear search; long ones through a dictionary.
    static func termCounts(_ text: String) -> (terms: [(String, Int32)], length: Int) {
        let tokens = TextTokenizer.tokens(text)
        var terms: [(String, Int32)] = []
        if tokens.count <= 32 {
            outer: for token in tokens {
                for index in terms.indices where terms[index].0 == token {
                    terms[index].1 += 1
                    continue outer
                }
                terms.append((token, 1))
            }
        } else {
            var positions: [String: Int] = [:]
            for token in tokens {
                if let index = positions[token] {
                    terms[index].1 += 1
                } else {
                    positions[token] = terms.count
                    terms.append((token, 1))
                }
            }
        }
        return (terms, tokens.count)
    }

    @usableFromInline
    mutating func insert(_ text: String, _ entity: Int32) {
        let (terms, length) = Self.termCounts(text)
        if Int(entity) >= lengths.count { lengths.append(contentsOf: repeatElement(-1, count: Int(entity) + 1 - lengths.count)) }
        lengths[Int(entity)] = Int32(length)
        documentCount += 1
        totalLength += length
        for (term, count) in terms {
            postings[term, default: PostingList()].insert(entity, count)
        }
    }

    @usableFromInline
    mutating func remove(_ text: String, _ entity: Int32) {
        guard let length = length(of: entity) else { return }
        lengths[Int(entity)] = -1
        documentCount -= 1
        totalLength -= length
        for (term, _) in Self.termCounts(text).terms {
            // Removed in place: the dictionary's storage is the list's only owner.
            postings.updateValue(forKey: term) { list in
                list.remove(entity)
                return !list.isEmpty
            }
        }
    }

    /// Entities containing every one of `tokens`, in key order (all entities for no tokens).
    func entities(containingAll tokens: [String]) -> [Int32] {
        guard !tokens.isEmpty else { return lengths.indices.filter { lengths[$0] >= 0 }.map { Int32($0) } }
        let lists = tokens.map { postings[$0] ?? PostingList() }.sorted { $0.count < $1.count }
        var result: [Int32] = []
        for (entity, _) in lists[0] where lists.dropFirst().allSatisfy({ $0.contains(entity) }) { result.append(entity) }
        return result
    }

    /// The BM25 score of each of `entities` for the query `tokens`, in order. Each token's
    /// posting list and rarity are looked up once: O(tokens + entities × tokens × log p).
    func scores(of entities: [Int32], tokens: [String]) -> [Double] {
        let lists = tokens.map { postings[$0] }
        let idfs = lists.map { BM25.idf(documentFrequency: $0?.count ?? 0, documents: documentCount) }
        let average = averageLength
        return entities.map { entity in
            let length = length(of: entity) ?? 0
            var score = 0.0
            for (list, idf) in zip(lists, idfs) {
                guard let frequency = list?.value(of: entity), frequency > 0 else { continue }
                score += BM25.term(idf: idf, frequency: Int(frequency), length: length, averageLength: average)
            }
            return score
        }
    }
}
