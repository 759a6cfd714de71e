@_spi(SchemaStore) import SchemaRuntime

/// Writes a full-text index's SQL tables (``FullTextLayout``) for one write: the postings,
/// lengths and share of the totals of the entities it removed and added
/// (``FullTextChanges``). O(postings changed × log n), a statement per 64 rows written.
///
/// Postings are written grouped by term, terms in order, rather than entity by entity: the
/// terms table is clustered by (term, id), so a write of many entities then fills each
/// term's pages one after another instead of touching a random page per posting.
enum FullTextPostings {
    /// Writes `changes` to `index`'s tables; the totals gain `added` (what the changes' texts
    /// add, from ``FullTextChanges/update(id:text:)``) less what the removed entities held.
    static func write(_ changes: FullTextChanges, to index: FullTextLayout, adding added: (documents: Int, length: Int),
                      in database: SQLiteDatabase) throws {
        var documents = added.documents, length = added.length
        // The removed entities' documents go first; the terms each lists find its postings.
        var gone: [String: [StoredValue]] = [:]
        for batch in paddedBatches(changes.removed) {
            let removed = try database.statement(cacheKey: "fts remove \(batch.count) " + index.documentsTable, """
                DELETE FROM \(quoted(index.documentsTable)) WHERE id IN (\(SQLiteDatabase.placeholders(batch.count))) RETURNING id, length, terms
                """)
            try removed.bind(batch)
            while try removed.step() {
                guard case .integer(let removedLength) = removed.value(at: 1), case .text(let terms) = removed.value(at: 2) else { continue }
                documents -= 1
                length -= Int(removedLength)
                let id = removed.value(at: 0)
                for term in terms.split(separator: FullTextLayout.termSeparator) { gone[String(term), default: []].append(id) }
            }
            removed.reset()
        }
        let delete = try database.statement(cacheKey: "fts remove " + index.termsTable,
                                            "DELETE FROM \(quoted(index.termsTable)) WHERE term = ? AND id = ?")
        for term in gone.keys.sorted() {
            for id in gone[term]! { try delete.run([.text(term), id]) }
        }

        let postings = changes.postingsByTerm()
        var rows: [StoredValue] = []
        rows.reserveCapacity(3 * postings.reduce(0) { $0 + $1.postings.count })
        for (term, termPostings) in postings {
            for (id, count) in termPostings { rows += [.text(term), id, .integer(Int64(count))] }
        }
        try database.insertRows(rows, width: 3, head: "INSERT INTO \(quoted(index.termsTable)) (term, id, count)", cacheKey: "fts add " + index.termsTable)
        rows.removeAll(keepingCapacity: true)
        for (id, terms, documentLength) in changes.added {
            rows += [id, .integer(Int64(documentLength)), .text(terms.map(\.0).joined(separator: String(FullTextLayout.termSeparator)))]
        }
        try database.insertRows(rows, width: 3, head: "INSERT INTO \(quoted(index.documentsTable)) (id, length, terms)",
                                cacheKey: "fts add " + index.documentsTable)

        guard documents != 0 || length != 0 else { return }
        try database.statement(cacheKey: "fts totals " + index.totalsTable,
                               "UPDATE \(quoted(index.totalsTable)) SET documents = documents + ?, length = length + ?")
            .run([.integer(Int64(documents)), .integer(Int64(length))])
    }

    /// `ids` in batches of 512, the last one padded (with its first id, which `IN` ignores)
    /// to 1, 8, 64 or 512 ids: a few cached statements serve every count.
    private static func paddedBatches(_ ids: [StoredValue]) -> [[StoredValue]] {
        stride(from: 0, to: ids.count, by: 512).map { start in
            var batch = Array(ids[start..<min(start + 512, ids.count)])
            let size = [1, 8, 64, 512].first { $0 >= batch.count }!
            batch += Array(repeating: batch[0], count: size - batch.count)
            return batch
        }
    }
}

extension SQLiteBackend {
    /// Makes the file's full-text tables those the schema's indexes want: creates and fills
    /// the missing ones from the rows (O(rows × tokens), once), drops the ones no index wants.
    /// With `rebuild` (the rows were migrated), every one is made again. Called in the open's
    /// transaction by a writer opening the file on demand.
    func syncFullText(_ layout: StoreLayout, rebuild: Bool) throws {
        let present = try database.strings("SELECT name FROM sqlite_master WHERE type = 'table'").filter(FullTextLayout.isManaged)
        var wanted: [(entity: any AnyEntityPersister, position: Int, index: FullTextLayout)] = []
        for entity in layout.entities {
            for (position, index) in entity.fullTextIndexes.enumerated() { wanted.append((entity, position, index)) }
        }
        let kept = rebuild ? [] : Set(wanted.flatMap(\.index.tables)).intersection(present)
        for name in present.sorted() where !kept.contains(name) { try database.execute("DROP TABLE \(quoted(name))") }
        for (entity, position, index) in wanted where !index.tables.allSatisfy(kept.contains) {
            for name in index.tables where kept.contains(name) { try database.execute("DROP TABLE \(quoted(name))") }
            for statement in index.createStatements { try database.execute(statement) }
            // In parts of 20,000 rows, so memory stays bounded; nothing to remove from tables
            // just made.
            var changes = FullTextChanges()
            var added = (documents: 0, length: 0)
            func flush() throws {
                try FullTextPostings.write(changes, to: index, adding: added, in: database)
                (changes, added) = (FullTextChanges(), (0, 0))
            }
            try loadRows(entity) { values in
                let change = changes.update(id: values[0], text: try entity.indexedTexts(ofRow: values)[position], isNew: true)
                added = (added.documents + change.documents, added.length + change.length)
                if changes.added.count == 20_000 { try flush() }
            }
            try flush()
        }
        database.clearStatementCache()
    }
}

extension SQLiteBackend {
    /// Whether the file has the tables of `index` (a writer opening it on demand made them).
    func hasFullText(_ index: FullTextLayout) throws -> Bool {
        if let attachedPacks { return attachedPacks.dialect.covers(index.termsTable) }
        return try mapped { try index.tables.allSatisfy(database.tableNames().contains) }
    }

    /// The ids of the entities of `entity` whose indexed text holds every one of `tokens`
    /// (at least one), in storage order. Every token is a bound value.
    ///
    /// In a file, the first token's postings, each looked up by key among the others'
    /// (O(p log n) for p postings of the first token): an `INTERSECT` of the posting
    /// ranges, which sorts them into a temporary tree, took 1.8 ms against 1.3 for two words
    /// of a million messages (4,000 postings each, in `sqlite3`). Over packs, where the
    /// postings are a union of each layer's, the `INTERSECT`.
    func fullTextIDs(_ index: FullTextLayout, of entity: any AnyEntityPersister, tokens: [String]) throws -> [StoredValue] {
        let dialect = self.dialect
        let terms = dialect.tableReference(index.termsTable)
        let postings = attachedPacks != nil
            ? Array(repeating: "SELECT id FROM \(terms) WHERE term = ?", count: tokens.count).joined(separator: " INTERSECT ")
            : FullTextLayout.idsHoldingEvery(tokens.count, terms: terms, dialect: dialect)
        let id = quoted(entity.columns[0].name)
        // Over packs, the postings first, then their rows by id in each layer (SQLite would
        // not look the ids up in each select of the union), sorted here.
        if attachedPacks != nil {
            let candidates = try mapped { try values(postings, tokens.map(StoredValue.text)) }
            var found: [(order: Int64, id: StoredValue)] = []
            for batch in SubgraphLoader.batches(candidates) {
                try rows(SQLSelect(output: .columns([.column(entity.columns[0].name), .storageOrder()]), table: entity.tableName,
                                   filter: .oneOf(.column(entity.columns[0].name), batch))) { row in
                    if case .integer(let order) = row[1] { found.append((order, row[0])) }
                }
            }
            return found.sorted { $0.order < $1.order }.map(\.id)
        }
        let sql = "SELECT \(id) FROM \(dialect.tableReference(entity.tableName)) WHERE \(id) IN (\(postings)) ORDER BY \(dialect.storageOrderColumn)"
        return try mapped { try values(sql, tokens.map(StoredValue.text)) }
    }

    /// The first column of the rows `sql` returns with `bindings` bound.
    func values(_ sql: String, _ bindings: [StoredValue]) throws -> [StoredValue] {
        let statement = try database.statement(sql)
        defer { statement.reset() }
        try statement.bind(bindings)
        var values: [StoredValue] = []
        while try statement.step() { values.append(statement.value(at: 0)) }
        return values
    }

    /// The statistics BM25 needs for `tokens` over the whole index: O(log n) for the totals,
    /// O(entities holding each token) for its count.
    func fullTextStatistics(_ index: FullTextLayout, tokens: [String]) throws -> FullTextStatistics {
        try mapped {
            let (documents, length) = try fullTextTotals(index)
            let count = try database.statement("SELECT count(*) FROM \(dialect.tableReference(index.termsTable)) WHERE term = ?")
            var frequencies: [String: Int] = [:]
            for token in Set(tokens) {
                try count.bind([.text(token)])
                if try count.step(), case .integer(let number) = count.value(at: 0) { frequencies[token] = Int(number) }
                count.reset()
            }
            return FullTextStatistics(documents: Int(documents), totalLength: Int(length), documentFrequency: frequencies)
        }
    }

    /// The totals of `index`: the file's, or the union's over packs.
    private func fullTextTotals(_ index: FullTextLayout) throws -> (documents: Int64, length: Int64) {
        if let attachedPacks { return try unionFullTextTotals(index, attached: attachedPacks) }
        let totals = try database.statement("SELECT documents, length FROM \(quoted(index.totalsTable))")
        defer { totals.reset() }
        guard try totals.step(), case .integer(let documents) = totals.value(at: 0), case .integer(let length) = totals.value(at: 1) else {
            throw StoreError.corrupt(path: location, reason: "the totals of full-text index \(index.indexName) are missing")
        }
        return (documents, length)
    }
}
