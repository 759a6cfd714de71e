@_spi(SchemaStore) import SchemaRuntime

/// A full-text index of the schema as SQL keeps it for stores reading on demand: postings
/// (token, entity id, count), each entity's length in tokens, and the table's totals, so a
/// ranked `matches` query finds its candidates and BM25 statistics without reading the table.
///
/// The tables exist only in files a writer opened ``Store/Residency/onDemand`` (like the SQL
/// indexes), are filled from the rows when created, and are kept up to date by every writer
/// while they exist. Their names carry the index's columns, so changing the index's fields
/// makes new tables (and drops the old ones).
struct FullTextLayout: @unchecked Sendable {
    let entityName: String
    let indexName: String
    /// The index's fields, in order (immutable key paths, shared safely).
    let keyPaths: [AnyKeyPath]
    /// The columns of those fields.
    let columns: [String]

    /// `(term, id, count)`, keyed by term then id.
    let termsTable: String
    /// `(id, length, terms)`: every indexed entity's length in tokens and its distinct terms
    /// (joined by ``termSeparator``), so removing it finds its postings by key.
    let documentsTable: String
    /// Between the terms of a document: a control character, which no token contains.
    static let termSeparator: Character = "\u{1F}"
    /// One row: `(documents, length)`, the number of indexed entities and their total length.
    let totalsTable: String

    init(entityName: String, indexName: String, keyPaths: [AnyKeyPath], columns: [String]) {
        (self.entityName, self.indexName, self.keyPaths, self.columns) = (entityName, indexName, keyPaths, columns)
        // `v2`: the layout of the tables (an older layout's tables are dropped and made again).
        // Stored, not computed: writes key their statements by these names.
        let prefix = "\(entityName):fts:v2:\(indexName)(\(columns.joined(separator: ",")))"
        (termsTable, documentsTable, totalsTable) = (prefix + ":terms", prefix + ":documents", prefix + ":totals")
    }
    var tables: [String] { [termsTable, documentsTable, totalsTable] }

    /// The ids holding every one of `count` terms (at least one) in the postings table
    /// `terms` (as the query names it), the terms bound in order: the first term's postings,
    /// each joined by key with the others'. Each (term, id) is a key, so every id comes out
    /// once, however many terms. A join, rather than an `INTERSECT` of the terms' postings
    /// (which hashes or sorts them all): PostgreSQL merges the ranges (each in id order in
    /// the key), SQLite looks each posting up by key.
    static func idsHoldingEvery(_ count: Int, terms: String, dialect: any SQLDialect) -> String {
        let tables = (0..<count).map { "\(terms) t\($0)" }.joined(separator: ", ")
        let conditions = (0..<count).map { "t\($0).term = \(dialect.placeholder($0 + 1))" } + (0..<count).dropFirst().map { "t\($0).id = t0.id" }
        return "SELECT t0.id FROM \(tables) WHERE \(conditions.joined(separator: " AND "))"
    }

    /// Whether `name` is a table of some full-text layout (managed: dropped when unwanted).
    static func isManaged(_ name: String) -> Bool { name.contains(":fts:") }

    var createStatements: [String] {
        [
            "CREATE TABLE \(quoted(termsTable)) (term TEXT NOT NULL, id NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (term, id)) WITHOUT ROWID",
            "CREATE TABLE \(quoted(documentsTable)) (id PRIMARY KEY NOT NULL, length INTEGER NOT NULL, terms TEXT NOT NULL) WITHOUT ROWID",
            "CREATE TABLE \(quoted(totalsTable)) (documents INTEGER NOT NULL, length INTEGER NOT NULL)",
            "INSERT INTO \(quoted(totalsTable)) (documents, length) VALUES (0, 0)",
        ]
    }
}
