@_spi(SchemaStore) import SchemaRuntime

/// A write on PostgreSQL that reads before it takes the write lock
/// (``PostgreSQLBackend/transactionValidatingReads(_:_:)``): what it read, the checks its
/// reads asked for, and the SQL that checks them under the lock.
///
/// Optimistic concurrency, at the grain of the ``CommitLog``: the write's first read also
/// reads the last commit, n; under the lock, the write commits only if no commit after n
/// names anything it read (``WriteReadSet``) and every absence it relied on still holds.
/// Commits stay numbered in the order they commit, each as if it had run alone at its
/// lock: what it read is what it would have read there.
struct ReadValidation {
    /// What the write read so far.
    let reads: () -> WriteReadSet
    /// Checks that rows are still absent (``PostgreSQLBackend/expectNoRows(_:)``) asked for
    /// before the lock: each the `EXISTS` condition that fails it, with its bindings. They
    /// go right after the lock.
    var absences: [(found: String, parameters: [StoredValue])] = []
    /// Whether the lock and the check went into the write's statements.
    var lockQueued = false

    /// A statement that divides by zero, failing the transaction, when the SQL condition
    /// `found` holds (an `EXISTS` of rows that must be absent).
    static func failing(if found: String) -> String {
        "SELECT 1 / (CASE WHEN \(found) THEN 0 ELSE 1 END)"
    }

    /// A statement answering 1 unless `found` holds, 0 if it does: ``failing(if:)``'s
    /// check, asked without failing.
    static func holding(unless found: String) -> String {
        "SELECT CASE WHEN \(found) THEN 0 ELSE 1 END"
    }

    /// The statement that goes right after the lock: divides by zero unless the recorded
    /// fingerprint is still `fingerprint` (when checked) and nothing read changed after
    /// commit `since`; answers the number it gives the commit (the last one's plus one),
    /// as ``PostgreSQLBackend/transactionNumberedOnServer(_:)`` numbers it.
    static func check(fingerprint: String??, since: Int64?, reads: WriteReadSet) -> (sql: String, parameters: [StoredValue]) {
        var conditions: [String] = []
        var parameters: [StoredValue] = []
        if let fingerprint {
            conditions.append("(\(PostgreSQLBackend.fingerprintQuery)) IS NOT DISTINCT FROM $2")
            parameters = [.text(StoreMetadataKey.fingerprint), fingerprint.map(StoredValue.text) ?? .null]
        }
        if !reads.isEmpty {
            let (condition, values) = unchanged(since: since, reads: reads, firstParameter: parameters.count + 1)
            conditions.append(condition)
            parameters += values
        }
        let holds = conditions.isEmpty ? "TRUE" : conditions.joined(separator: " AND ")
        let sql = """
            SELECT 1 / (CASE WHEN \(holds) THEN 1 ELSE 0 END), \
            set_config('\(PostgreSQLBackend.commitSetting)', (\(PostgreSQLBackend.lastCommitQuery) + 1)::text, true)
            """
        return (sql, parameters)
    }

    /// The condition that no commit after `since` names what `reads` holds, with its
    /// bindings, numbered from `firstParameter`: the log's entries after it (a row each, or
    /// sets of ids) are matched against the names read whole and the ids read by name; and
    /// the log still holds every commit after it (``CommitLog/retainedCommits``: it holds the
    /// one right after, or none came; asked by key, since the oldest entries are found past
    /// the dead ones pruning left until a vacuum). Without a
    /// `since` (nothing read yet), false: everything counts as changed.
    static func unchanged(since: Int64?, reads: WriteReadSet, firstParameter first: Int) -> (condition: String, parameters: [StoredValue]) {
        guard let since else { return ("FALSE", []) }
        let log = PostgreSQLBackend.commitLogTable
        let (names, ids) = reads.pairs
        // Each entry after `since` once (sets unnested), looked up among the pairs read (a
        // hashed subplan): O(entries + pairs), however many of either.
        let condition = """
            NOT EXISTS (SELECT 1 FROM \(log) l CROSS JOIN LATERAL unnest(coalesce(l.ids, ARRAY[l.id])) AS e(id) \
            WHERE l."commit" > $\(first) AND l."commit" <= (SELECT max("commit") FROM \(log)) \
            AND (l.name = ANY($\(first + 1)::text[]) OR (l.name, e.id) IN (SELECT * FROM unnest($\(first + 2)::text[], $\(first + 3)::text[])))) \
            AND ($\(first) = \(PostgreSQLBackend.lastCommitQuery) OR EXISTS (SELECT 1 FROM \(log) WHERE "commit" = $\(first) + 1))
            """
        return (condition, [
            .integer(since),
            .text(ServerArrayLiteral.encode(reads.wholeNames.sorted().map(StoredValue.text))),
            .text(ServerArrayLiteral.encode(names.map(StoredValue.text))),
            .text(ServerArrayLiteral.encode(ids.map { .text(ServerValueText.encode($0)) })),
        ])
    }
}
