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
    /// Around a big write's postings (``PostgreSQLBackend/bulkPostings``): `drop` drops the
    /// postings' key when the table is empty, so that `restore`, after them, builds it once,
    /// in bulk (nothing when it stayed). Nil when the table's name does not fit in the
    /// statements' quoting.
    let bulkKey: (drop: String, restore: String)?

    /// The statements of ``bulkKey`` for the postings table `table` (unquoted). PL/pgSQL blocks, so the choice is made by the server in the write's
    /// pipeline, with no round trip: the table is empty (writers hold the writers' lock, so
    /// no other write fills it meanwhile), and the key can be dropped within 100 ms (a
    /// reader of the table in another transaction holds it; then the key stays and the
    /// postings go in row by row, as before). The dropped key's name is kept in a setting
    /// local to the transaction, for the restore.
    static func bulkKey(table: String) -> (drop: String, restore: String)? {
        guard !table.contains("$") else { return nil }
        let literal = "'" + table.replacingOccurrences(of: "'", with: "''") + "'"
        let drop = """
            DO $schemagen$ DECLARE key name; previous text := current_setting('lock_timeout'); BEGIN             IF EXISTS (SELECT FROM \(quoted(table))) THEN RETURN; END IF;             SELECT conname INTO key FROM pg_constraint WHERE conrelid = quote_ident(\(literal))::regclass AND contype = 'p';             IF key IS NULL THEN RETURN; END IF;             PERFORM set_config('lock_timeout', '100ms', true);             BEGIN             EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I', \(literal), key);             PERFORM set_config('schemagen.dropped_key', key, true);             EXCEPTION WHEN lock_not_available THEN NULL;             END;             PERFORM set_config('lock_timeout', previous, true);             END $schemagen$
            """
        let restore = """
            DO $schemagen$ DECLARE key text := current_setting('schemagen.dropped_key', true); BEGIN             IF coalesce(key, '') = '' THEN RETURN; END IF;             EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I PRIMARY KEY (term, id)', \(literal), key);             PERFORM set_config('schemagen.dropped_key', '', true);             END $schemagen$
            """
        return (drop, restore)
    }
}
