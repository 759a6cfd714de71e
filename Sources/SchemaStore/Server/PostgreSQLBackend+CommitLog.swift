@_spi(SchemaStore) import SchemaRuntime

/// The commit log on PostgreSQL (``CommitLog``): a row per entry, or, for a commit's many
/// entries of one table, sets of them in a row (`ids` and `changes`, text arrays), which
/// followers read alike, in order.
extension PostgreSQLBackend {
    /// The log's columns for sets of entries (``CommitLog/setThreshold``), added to a log
    /// made before them; changed only when missing (an `ALTER` waits for every transaction
    /// reading the log).
    func addLogSetColumns() throws {
        guard try !logHasSets() else { return }
        try execute("""
            ALTER TABLE \(Self.commitLogTable) ADD COLUMN IF NOT EXISTS ids text[], ADD COLUMN IF NOT EXISTS changes text[], \
            ALTER COLUMN id DROP NOT NULL
            """)
        logHasSetColumns = true
    }

    /// Whether the log has the columns of sets: asked once per connection until it has
    /// (a reader of a database no writer of this version opened yet reads it without them).
    func logHasSets() throws -> Bool {
        if logHasSetColumns { return true }
        // The catalog itself: `information_schema` takes milliseconds, a store's open 25% more.
        let present = try execute("""
            SELECT count(*) FROM pg_attribute WHERE attrelid = to_regclass($1) AND attname IN ('ids', 'changes') AND NOT attisdropped
            """, [.text(Self.commitLogTable)])
        logHasSetColumns = present.first?.first == .integer(2)
        return logHasSetColumns
    }

    /// Adds `entries` of `commit` (in the write's batch); nil for the number the server gave
    /// the transaction (``serverCommitNumber``). The entries of one table (kind
    /// and name) go as sets, a row per ``CommitLog/setSize``, when there are at least
    /// ``CommitLog/setThreshold`` of them (a big write's 300,000 entries in a few dozen
    /// rows; a row each cost the server 0.5 s of a 100k first commit); else a row each.
    func insertLogEntries(_ entries: [CommitLog.Entry], commit: StoredValue?) throws {
        let groups = Self.groups(of: entries)
        for group in groups {
            guard group.count >= CommitLog.setThreshold else {
                for entry in group {
                    let values = [.text(entry.kind.rawValue), .text(entry.name), entry.storedID, entry.storedChange]
                    if let commit {
                        try insertColumns(head: Self.logRowHead, types: Self.logRowTypes, [commit] + values, key: nil, fusion: Self.commitLogWrite)
                    } else {
                        try insertColumns(head: Self.logRowHeadNumberedOnServer, types: Self.logRowTypesNumberedOnServer, values, key: nil,
                                          fusion: Self.commitLogWrite)
                    }
                }
                continue
            }
            for start in stride(from: 0, to: group.count, by: CommitLog.setSize) {
                let set = group[start..<min(start + CommitLog.setSize, group.count)]
                let values: [StoredValue] = [.text(group[0].kind.rawValue), .text(group[0].name), .text(ServerArrayLiteral.encode(set.map(\.storedID))),
                                             .text(ServerArrayLiteral.encode(set.map(\.storedChange)))]
                if let commit {
                    try run(Self.logSetInsert, [commit] + values, fusion: Self.commitLogWrite)
                } else {
                    try run(Self.logSetInsertNumberedOnServer, values, fusion: Self.commitLogWrite)
                }
            }
        }
    }

    /// `entries` grouped by table (kind and name), the groups in the order of their first
    /// entries, each group's entries in their order. O(entries) for a commit of up to
    /// ``groupsFoundByComparing`` tables, O(entries) hashed lookups past them.
    static func groups(of entries: [CommitLog.Entry]) -> [[CommitLog.Entry]] {
        var groups: [[CommitLog.Entry]] = []
        var groupByKey: [LogGroup: Int] = [:]
        var current = -1
        for entry in entries {
            // A table's entries mostly follow one another: the group of the entry before is
            // tried first, without hashing its name.
            if current >= 0, let first = groups[current].first, first.kind == entry.kind, first.name == entry.name {
                groups[current].append(entry)
                continue
            }
            // A commit of a few tables (a single write's) looks its groups up by comparing
            // names, which costs less than hashing them; past a few, by a dictionary.
            let index: Int?
            if groups.count <= groupsFoundByComparing {
                index = groups.firstIndex { $0[0].kind == entry.kind && $0[0].name == entry.name }
            } else {
                if groupByKey.isEmpty {
                    for (index, group) in groups.enumerated() { groupByKey[LogGroup(kind: group[0].kind, name: group[0].name)] = index }
                }
                index = groupByKey[LogGroup(kind: entry.kind, name: entry.name)]
            }
            if let index {
                current = index
                groups[index].append(entry)
            } else {
                current = groups.count
                if !groupByKey.isEmpty { groupByKey[LogGroup(kind: entry.kind, name: entry.name)] = current }
                groups.append([entry])
            }
        }
        return groups
    }

    /// Up to how many groups a commit's entries find theirs by comparing names (``groups(of:)``).
    static let groupsFoundByComparing = 8

    /// The entries of one table in a commit (``insertLogEntries(_:commit:)``).
    private struct LogGroup: Hashable {
        let kind: CommitLog.Kind
        let name: String
    }

    // The log's statements, spelled once (every write logs).
    private static let logRowHead = "INSERT INTO \(commitLogTable) (\"commit\", kind, name, id, change) SELECT * FROM "
    private static let logRowTypes = ["bigint", "text", "text", "text", "text"]
    private static let logRowHeadNumberedOnServer = "INSERT INTO \(commitLogTable) (\"commit\", kind, name, id, change) SELECT \(serverCommitNumber), * FROM "
    private static let logRowTypesNumberedOnServer = ["text", "text", "text", "text"]
    private static let logSetInsert = "INSERT INTO \(commitLogTable) (\"commit\", kind, name, ids, changes) VALUES ($1, $2, $3, $4::text[], $5::text[])"
    private static let logSetInsertNumberedOnServer =
        "INSERT INTO \(commitLogTable) (\"commit\", kind, name, ids, changes) VALUES (\(serverCommitNumber), $1, $2, $3::text[], $4::text[])"

    func commits(after commit: Int64) throws -> [(commit: Int64, entry: CommitLog.Entry)] {
        // Read with the write before, in this read transaction (``readLogWithCommits(after:)``).
        if let read = takeLogReadAhead(after: commit) { return read }
        return try logEntries(try execute(try logHasSets() ? Self.logQuery : Self.logQueryWithoutSets, [.integer(commit)]))
    }

    /// The log's entries after the commit `$1`: a row holds one entry (`id`, `change`) or a
    /// set of them (`ids`, `changes`), read in order. Bounded above too: a generic plan
    /// estimates a one-sided range at a third of the table, and would scan it all.
    static let logQuery = """
        SELECT l."commit", l.kind, l.name, e.id, e.change FROM \(commitLogTable) l \
        CROSS JOIN LATERAL unnest(coalesce(l.ids, ARRAY[l.id]), CASE WHEN l.ids IS NULL THEN ARRAY[l.change] ELSE l.changes END) \
        WITH ORDINALITY AS e(id, change, position) WHERE \(logRange) ORDER BY l.sequence, e.position
        """
    /// ``logQuery`` for a log made before sets of entries (``addLogSetColumns()``).
    private static let logQueryWithoutSets = "SELECT l.\"commit\", l.kind, l.name, l.id, l.change FROM \(commitLogTable) l WHERE \(logRange) ORDER BY l.sequence"
    private static let logRange = "l.\"commit\" > $1 AND l.\"commit\" <= (SELECT max(\"commit\") FROM \(commitLogTable))"

    /// The entries of ``logQuery``'s rows.
    func logEntries(_ rows: [[StoredValue]]) throws -> [(commit: Int64, entry: CommitLog.Entry)] {
        try rows.map { row in
            guard row.count == 5, case .integer(let number) = row[0], case .text(let kind) = row[1], let kind = CommitLog.Kind(rawValue: kind),
                  case .text(let name) = row[2], let id = Self.decoded(row[3]) else {
                throw StoreError.corrupt(path: location, reason: "a record of \(CommitLog.table) is unreadable")
            }
            var entry = CommitLog.Entry(kind: kind, name: name, id: id)
            if row[4] != .null {
                guard let change = Self.decoded(row[4]) else {
                    throw StoreError.corrupt(path: location, reason: "a record of \(CommitLog.table) is unreadable")
                }
                entry.change = change
            }
            return (number, entry)
        }
    }
}

private extension CommitLog.Entry {
    /// The entry's id as the log's `id` column (or an element of `ids`) holds it.
    var storedID: StoredValue { .text(ServerValueText.encode(id)) }
    /// Its change as `change` (or an element of `changes`) holds it; NULL for none.
    var storedChange: StoredValue { change.map { .text(ServerValueText.encode($0)) } ?? .null }
}
