/// The statements that keep one full-text index's tables on PostgreSQL, spelled once
/// (``PostgreSQLBackend/writeFullText(_:addedDocuments:addedLength:)``).
struct FullTextStatements: Sendable {
    /// A posting: `(term, id, count)`.
    let postings: RowInsert
    /// A document's length and terms: `(id, length, terms)`.
    let documents: RowInsert
    /// Removing documents by id, with their postings and their share of the totals:
    /// `head (ids) tail`.
    let removalHead: String
    let removalTail: String
    /// Adding `$1` documents of `$2` tokens in all to the totals.
    let addToTotals: String
    /// The totals' table, for sending `addToTotals` as part of one statement with other writes.
    let totalsWrite: StatementFusion
}
