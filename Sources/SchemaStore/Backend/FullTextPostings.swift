@_spi(SchemaStore) import SchemaRuntime

/// Writes a full-text index's SQL tables (``FullTextLayout``): an entity's postings, length
/// and its share of the totals, added and removed as its rows are written. O(distinct tokens
/// of the entity) statements per change, each a seek by primary key.
enum FullTextPostings {
    /// Indexes `text` for entity `id` (which has no postings yet); returns what it adds to
    /// the totals (one document, its length), which the caller applies once per write.
    @discardableResult
    static func add(_ index: FullTextLayout, id: StoredValue, text: String, in database: SQLiteDatabase) throws -> (documents: Int, length: Int) {
        let (terms, length) = FullTextStatistics.terms(of: text)
        let insert = try database.statement(cacheKey: "fts add " + index.termsTable,
                                            "INSERT INTO \(quoted(index.termsTable)) (term, id, count) VALUES (?, ?, ?)")
        for (term, count) in terms { try insert.run([.text(term), id, .integer(Int64(count))]) }
        let joined = terms.map(\.0).joined(separator: String(FullTextLayout.termSeparator))
        try database.statement(cacheKey: "fts document " + index.documentsTable,
                               "INSERT INTO \(quoted(index.documentsTable)) (id, length, terms) VALUES (?, ?, ?)")
            .run([id, .integer(Int64(length)), .text(joined)])
        return (1, length)
    }

    /// Removes entity `id` from the index, if it is there; returns what it takes from the
    /// totals (nothing when it was not indexed).
    static func remove(_ index: FullTextLayout, id: StoredValue, in database: SQLiteDatabase) throws -> (documents: Int, length: Int) {
        let removed = try database.statement(cacheKey: "fts remove " + index.documentsTable,
                                             "DELETE FROM \(quoted(index.documentsTable)) WHERE id = ? RETURNING length, terms")
        try removed.bind([id])
        let found = try removed.step() ? (removed.value(at: 0), removed.value(at: 1)) : nil
        // Stepped to the end, so the delete completes.
        while try removed.step() {}
        removed.reset()
        guard let (stored, terms) = found, case .integer(let length) = stored, case .text(let joined) = terms else { return (0, 0) }
        let delete = try database.statement(cacheKey: "fts remove " + index.termsTable,
                                            "DELETE FROM \(quoted(index.termsTable)) WHERE term = ? AND id = ?")
        for term in joined.split(separator: FullTextLayout.termSeparator) { try delete.run([.text(String(term)), id]) }
        return (-1, -Int(length))
    }

    /// Adds a write's changes to the totals, in one statement.
    static func addToTotals(_ index: FullTextLayout, documents: Int, length: Int, in database: SQLiteDatabase) throws {
        guard documents != 0 || length != 0 else { return }
        try database.statement(cacheKey: "fts totals " + index.totalsTable,
                               "UPDATE \(quoted(index.totalsTable)) SET documents = documents + ?, length = length + ?")
            .run([.integer(Int64(documents)), .integer(Int64(length))])
    }

    /// Sets the totals from the documents table (after a fill).
    static func recomputeTotals(_ index: FullTextLayout, in database: SQLiteDatabase) throws {
        try database.execute("""
            UPDATE \(quoted(index.totalsTable)) SET documents = (SELECT count(*) FROM \(quoted(index.documentsTable))), \
            length = (SELECT coalesce(sum(length), 0) FROM \(quoted(index.documentsTable)))
            """)
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
            try loadRows(entity) { values in
                try FullTextPostings.add(index, id: values[0], text: entity.indexedTexts(ofRow: values)[position], in: database)
            }
            try FullTextPostings.recomputeTotals(index, in: database)
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

    /// The ids of the entities of `entity` whose indexed text holds every one of `tokens`,
    /// in storage order: one intersection of posting ranges. Every token is a bound value.
    func fullTextIDs(_ index: FullTextLayout, of entity: any AnyEntityPersister, tokens: [String]) throws -> [StoredValue] {
        let dialect = self.dialect
        let postings = Array(repeating: "SELECT id FROM \(dialect.tableReference(index.termsTable)) WHERE term = ?", count: tokens.count)
            .joined(separator: " INTERSECT ")
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
