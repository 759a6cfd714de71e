/// The full-text index: an inverted index from token to the entities containing it, with
/// term frequencies and document lengths kept exact through updates and deletes, for BM25.
///
/// Each token's posting list is sorted by entity key, so the usual case (new entities get
/// new, larger keys) appends. Insert and remove are O(t log p) for a document of t tokens and
/// posting lists of length p (plus a shift when an older entity is re-indexed); finding the
/// documents containing every query token is O(shortest list × tokens × log p).
@usableFromInline
struct FullTextIndexStorage: Sendable {
    /// Entities containing a token, ascending, with the token's count in each.
    struct PostingList: Sendable, Equatable {
        var entities: [Int32] = []
        var counts: [Int32] = []

        func position(of entity: Int32) -> (index: Int, found: Bool) {
            if let last = entities.last, last < entity { return (entities.count, false) }
            var low = 0, high = entities.count
            while low < high {
                let mid = (low + high) / 2
                if entities[mid] < entity { low = mid + 1 } else { high = mid }
            }
            return (low, low < entities.count && entities[low] == entity)
        }

        func count(of entity: Int32) -> Int {
            let (index, found) = position(of: entity)
            return found ? Int(counts[index]) : 0
        }
    }

    @usableFromInline init() {}

    private(set) var postings: [String: PostingList] = [:]
    /// key -> number of tokens, or -1 when the entity is not indexed.
    private var lengths: ContiguousArray<Int32> = []
    private(set) var documentCount = 0
    private(set) var totalLength = 0

    var averageLength: Double { documentCount == 0 ? 0 : Double(totalLength) / Double(documentCount) }

    func length(of entity: Int32) -> Int? {
        Int(entity) < lengths.count && lengths[Int(entity)] >= 0 ? Int(lengths[Int(entity)]) : nil
    }

    /// Distinct tokens of `text` with their counts, in first-occurrence order.
    /// Short texts (the usual case) count by linear search; long ones through a dictionary.
    private static func termCounts(_ text: String) -> (terms: [(String, Int32)], length: Int) {
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
            guard var list = postings.removeValue(forKey: term) else { continue }
            let (index, found) = list.position(of: entity)
            if found {
                list.entities.remove(at: index)
                list.counts.remove(at: index)
            }
            if !list.entities.isEmpty { postings[term] = list }
        }
    }

    /// Entities containing every one of `tokens`, in key order (all entities for no tokens).
    func entities(containingAll tokens: [String]) -> [Int32] {
        guard !tokens.isEmpty else { return lengths.indices.filter { lengths[$0] >= 0 }.map { Int32($0) } }
        let lists = tokens.map { postings[$0] ?? PostingList() }.sorted { $0.entities.count < $1.entities.count }
        return lists[0].entities.filter { entity in lists.dropFirst().allSatisfy { $0.position(of: entity).found } }
    }

    func score(_ entity: Int32, tokens: [String]) -> Double {
        BM25.score(frequencies: tokens.map { postings[$0]?.count(of: entity) ?? 0 },
                   documentFrequencies: tokens.map { postings[$0]?.entities.count ?? 0 },
                   length: length(of: entity) ?? 0, averageLength: averageLength, documents: documentCount)
    }
}

extension FullTextIndexStorage.PostingList {
    mutating func insert(_ entity: Int32, _ count: Int32) {
        let (index, found) = position(of: entity)
        if found {
            counts[index] = count
        } else {
            entities.insert(entity, at: index)
            counts.insert(count, at: index)
        }
    }
}
