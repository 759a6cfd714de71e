@_spi(SchemaStore) import SchemaRuntime

/// One write's changes to one full-text index: the entities whose postings go (every entity
/// written or deleted), and the texts indexed again. Sent together when the write adds the
/// index's totals (``StoreTransaction/addToFullTextTotals(_:documents:length:)``), so that a
/// write of many entities sends a few large statements rather than several per entity (a
/// server), or writes the postings in term order (a SQLite file, where each term's postings
/// then fill pages one after another instead of one random page each).
struct FullTextChanges {
    var removed: [StoredValue] = []
    var added: [(id: StoredValue, terms: [(String, Int32)], length: Int)] = []

    /// Records that entity `id` now has `text` (nil: no longer indexed); returns what it adds
    /// to the totals (what it removes is taken from them when the changes are written).
    /// `isNew`: the entity had no row before the write, so nothing of it is removed.
    mutating func update(id: StoredValue, text: String?, isNew: Bool) -> (documents: Int, length: Int) {
        if !isNew { removed.append(id) }
        guard let text else { return (0, 0) }
        let (terms, length) = FullTextStatistics.terms(of: text)
        added.append((id, terms, length))
        return (1, length)
    }

    /// The added postings grouped by term, terms in order (Swift's `String` order, which is
    /// the order of their UTF-8 bytes, as a `COLLATE "C"` or SQLite `BINARY` index sorts
    /// them), each term's ids in the order added. Postings tables are keyed by (term, id):
    /// written in this order, a write of many entities fills each term's pages one after
    /// another instead of touching a random page per posting. O(postings × log terms).
    func postingsByTerm() -> [(term: String, postings: [(id: StoredValue, count: Int32)])] {
        if added.count == 1 {
            // One entity (a single write): its terms are distinct already.
            let (id, terms, _) = added[0]
            return terms.sorted { $0.0 < $1.0 }.map { ($0.0, [(id, $0.1)]) }
        }
        var postings: [String: [(id: StoredValue, count: Int32)]] = [:]
        for (id, terms, _) in added {
            for (term, count) in terms { postings[term, default: []].append((id, count)) }
        }
        return postings.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
