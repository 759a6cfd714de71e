@_spi(SchemaStore) import SchemaRuntime

/// Full-text postings on PostgreSQL: the tables of ``FullTextLayout`` (postings by term and
/// id, each entity's length and terms, the totals), with PostgreSQL's types, so that a store
/// reading on demand finds a ranked `matches` query's candidates and BM25 statistics in SQL,
/// with the runtime's tokenizer, as a SQLite file's readers do.
extension PostgreSQLBackend {
    /// The name PostgreSQL keeps for the full-text table `name`: itself when it fits in
    /// ``identifierLimit`` bytes, else `:fts:` and a 64-bit FNV-1a hash of it (still managed:
    /// ``FullTextLayout/isManaged(_:)``).
    static func fullTextTable(_ name: String) -> String {
        guard name.utf8.count > identifierLimit else { return name }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        let hex = String(hash, radix: 16)
        let suffix = name.hasSuffix(":terms") ? ":terms" : name.hasSuffix(":documents") ? ":documents" : ":totals"
        return ":fts:" + String(repeating: "0", count: 16 - hex.count) + hex + suffix
    }

    private static func createStatements(_ index: FullTextLayout, idType: StoredType) -> [String] {
        let id = columnType(idType)
        let (terms, documents, totals) = (quoted(fullTextTable(index.termsTable)), quoted(fullTextTable(index.documentsTable)),
                                          quoted(fullTextTable(index.totalsTable)))
        return [
            "CREATE TABLE \(terms) (term text NOT NULL, id \(id) NOT NULL, count bigint NOT NULL, PRIMARY KEY (term, id))",
            "CREATE TABLE \(documents) (id \(id) PRIMARY KEY, length bigint NOT NULL, terms text NOT NULL)",
            "CREATE TABLE \(totals) (documents bigint NOT NULL, length bigint NOT NULL)",
            "INSERT INTO \(totals) (documents, length) VALUES (0, 0)",
        ]
    }

    /// Makes the database's full-text tables those the schema's indexes want: creates and
    /// fills the missing ones from the rows (O(rows × tokens), once), drops the ones no index
    /// wants. With `rebuild` (the rows were migrated), every one is made again. Called in
    /// every writer's opening transaction.
    func syncFullText(_ layout: StoreLayout, rebuild: Bool) throws {
        var present: Set<String> = []
        for row in try execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()") {
            if case .text(let name) = row[0], FullTextLayout.isManaged(name) { present.insert(name) }
        }
        var wanted: [(entity: any AnyEntityPersister, position: Int, index: FullTextLayout)] = []
        for entity in layout.entities {
            for (position, index) in entity.fullTextIndexes.enumerated() { wanted.append((entity, position, index)) }
        }
        let kept = rebuild ? [] : Set(wanted.flatMap { $0.index.tables.map(Self.fullTextTable) }).intersection(present)
        for name in present.sorted() where !kept.contains(name) { try execute("DROP TABLE \(quoted(name))") }
        for (entity, position, index) in wanted where !index.tables.map(Self.fullTextTable).allSatisfy(kept.contains) {
            for name in index.tables.map(Self.fullTextTable) where kept.contains(name) { try execute("DROP TABLE \(quoted(name))") }
            for statement in Self.createStatements(index, idType: entity.idType) { try execute(statement) }
            var changes = FullTextChanges()
            var documents = 0, length = 0
            try loadRows(entity) { values in
                // Nothing to remove from tables just made.
                let added = changes.update(id: values[0], text: try entity.indexedTexts(ofRow: values)[position], isNew: true)
                documents += added.documents
                length += added.length
            }
            fullTextChanges[index.termsTable] = changes
            try writeFullText(index, addedDocuments: documents, addedLength: length)
        }
    }

    /// Sends a write's changes to `index` (``fullTextChanges``): the postings, lengths and
    /// totals of the entities written or deleted go, in SQL (their terms are read there),
    /// then the new ones are inserted, many rows per statement (``RowInsert``); the totals gain what was
    /// added. Nothing waits for an answer: the statements go with the write's next batch,
    /// a single write's inserts and totals as part of one statement with its other writes
    /// (``StatementFusion``).
    func writeFullText(_ index: FullTextLayout, addedDocuments: Int, addedLength: Int) throws {
        guard let changes = fullTextChanges.removeValue(forKey: index.termsTable) else { return }
        // Typed as the ids are (an entity's ids are all of its id's type).
        let idType = switch changes.added.first?.id ?? changes.removed.first ?? .null {
        case .integer: "bigint"
        case .real: "double precision"
        case .blob: "bytea"
        case .text, .null: "text"
        }
        let statements = fullTextStatements(index, idType: idType)
        // Each statement: the documents of up to 1,000 ids go, their postings (found by key,
        // from the terms each document lists) and their share of the totals with them.
        for id in changes.removed {
            try delete(head: statements.removalHead, tail: statements.removalTail, id)
        }
        // In term order (postingsByTerm): each term's postings then fill its pages one after
        // another, as PostgreSQL's B-tree takes them fastest.
        let byTerm = changes.postingsByTerm()
        let postingCount = byTerm.reduce(0) { $0 + $1.postings.count }
        if postingCount >= PendingWrites.copyRows {
            // Enough for `COPY`: spelled straight into its text, in pieces of about
            // `rowsPerCopy` rows so that the server starts on the first while the rest are
            // spelled. A row of values per posting made this a fifth of a big write's work.
            // Into an empty table, the key is built after them (IndexDeferral).
            let rowsPerCopy = 50_000
            var start = 0
            while start < byTerm.count {
                var end = start, rows = 0
                repeat {
                    rows += byTerm[end].postings.count
                    end += 1
                } while end < byTerm.count && rows + byTerm[end].postings.count <= rowsPerCopy
                try copyRows(statements.postings, ServerCopyRows.encodePostings(byTerm[start..<end]), count: rows)
                start = end
            }
        } else {
            for (term, postings) in byTerm {
                for (id, count) in postings { try insertRow(statements.postings, [.text(term), id, .integer(Int64(count))]) }
            }
        }
        for (id, counts, length) in changes.added {
            let joined = counts.map(\.0).joined(separator: String(FullTextLayout.termSeparator))
            try insertRow(statements.documents, [id, .integer(Int64(length)), .text(joined)])
        }
        if addedDocuments != 0 || addedLength != 0 {
            try run(statements.addToTotals, [.integer(Int64(addedDocuments)), .integer(Int64(addedLength))], fusion: statements.totalsWrite)
        }
    }

    /// The statements that keep `index`'s tables (``writeFullText(_:addedDocuments:addedLength:)``),
    /// spelled once per index and id type: every write of an indexed entity sends them.
    private func fullTextStatements(_ index: FullTextLayout, idType: String) -> FullTextStatements {
        if let made = fullTextStatementsMade[index.termsTable], made.postings.types[1] == idType { return made }
        let terms = quoted(Self.fullTextTable(index.termsTable)), documents = quoted(Self.fullTextTable(index.documentsTable))
        let totals = quoted(Self.fullTextTable(index.totalsTable))
        let separator = Int(FullTextLayout.termSeparator.unicodeScalars.first!.value)
        let made = FullTextStatements(
            postings: RowInsert(table: Self.fullTextTable(index.termsTable), columns: ["term", "id", "count"], types: ["text", idType, "bigint"]),
            documents: RowInsert(table: Self.fullTextTable(index.documentsTable), columns: ["id", "length", "terms"], types: [idType, "bigint", "text"]),
            removalHead: "WITH gone AS (DELETE FROM \(documents) WHERE id IN",
            removalTail: """
                 RETURNING id, length, terms), \
                postings AS (DELETE FROM \(terms) t USING gone WHERE t.id = gone.id AND t.term = ANY (string_to_array(gone.terms, chr(\(separator))))) \
                UPDATE \(totals) SET documents = documents - (SELECT count(*) FROM gone), length = length - (SELECT coalesce(sum(length), 0) FROM gone)
                """,
            addToTotals: "UPDATE \(totals) SET documents = documents + $1, length = length + $2",
            totalsWrite: .modifying(totals))
        fullTextStatementsMade[index.termsTable] = made
        return made
    }

    // MARK: Reading

    /// Asked once per connection for each index that has them: tables go only with a
    /// migration, after which this code's readers stop (the schema changed).
    func hasFullText(_ index: FullTextLayout) throws -> Bool {
        if fullTextTablesSeen.contains(index.termsTable) { return true }
        let names = index.tables.map { StoredValue.text(Self.fullTextTable($0)) }
        let rows = try execute("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema() AND tablename IN ($1, $2, $3)", names)
        guard rows.first?.first == .integer(Int64(names.count)) else { return false }
        fullTextTablesSeen.insert(index.termsTable)
        return true
    }

    /// The ids of the entities of `entity` whose indexed text holds every one of `tokens`
    /// (at least one), in storage order: the tokens' posting ranges joined on id (each range
    /// is in id order in the postings' key, so PostgreSQL merges them), then each id's
    /// storage order looked up by key. O(postings of the tokens + matches × log n). Joining
    /// the matches with the entity's table instead would do as well, but PostgreSQL's
    /// estimate of the matches is far too large, and it then chooses to scan the whole
    /// table. An `INTERSECT` of the ranges (a hash of every posting) took twice as long:
    /// 3.0-3.4 against 1.6-1.7 ms for two words in 1% of a million documents each. Every
    /// token is a bound value.
    func fullTextIDs(_ index: FullTextLayout, of entity: any AnyEntityPersister, tokens: [String]) throws -> [StoredValue] {
        let terms = quoted(Self.fullTextTable(index.termsTable))
        let postings = FullTextLayout.idsHoldingEvery(tokens.count, terms: terms, dialect: dialect)
        let id = quoted(entity.columns[0].name), table = quoted(entity.tableName)
        // An id without a row (none should be) sorts last, and loading its row finds none.
        let sql = "SELECT found.id FROM (\(postings)) AS found(id) ORDER BY (SELECT \(Self.orderColumn) FROM \(table) WHERE \(id) = found.id)"
        return try execute(sql, tokens.map(StoredValue.text)).map { Self.typed($0, [entity.idType])[0] }
    }

    /// The statistics BM25 needs for `tokens` over the whole index, in one statement: the
    /// totals, and the number of entities holding each token (O(those entities)).
    func fullTextStatistics(_ index: FullTextLayout, tokens: [String]) throws -> FullTextStatistics {
        let distinct = Array(Set(tokens)).sorted()
        let terms = quoted(Self.fullTextTable(index.termsTable))
        let counts = distinct.indices.map { ", (SELECT count(*) FROM \(terms) WHERE term = $\($0 + 1))" }.joined()
        let rows = try execute("SELECT documents, length\(counts) FROM \(quoted(Self.fullTextTable(index.totalsTable)))", distinct.map(StoredValue.text))
        guard let row = rows.first, case .integer(let documents) = row[0], case .integer(let length) = row[1] else {
            throw StoreError.corrupt(path: location, reason: "the totals of full-text index \(index.indexName) are missing")
        }
        var frequencies: [String: Int] = [:]
        for (offset, token) in distinct.enumerated() {
            if case .integer(let number) = row[2 + offset] { frequencies[token] = Int(number) }
        }
        return FullTextStatistics(documents: Int(documents), totalLength: Int(length), documentFrequency: frequencies)
    }
}
