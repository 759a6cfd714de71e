/// The keys and indexes of a table a big write fills from empty, built after its rows
/// rather than row by row (``PendingWrites``): PostgreSQL builds a B-tree from sorted rows
/// several times faster than it inserts into one. 250,000 full-text postings went in
/// 0.53-0.60 s under their key; without it in 0.11 s, and the key was then built in 0.11 s.
///
/// Both statements are PL/pgSQL blocks, so the server decides within the write's pipeline,
/// without a round trip:
/// - ``drop(_:)``, before the first `COPY` into a table: only when the table is empty (writers
///   hold the writers' lock, so no other write fills it meanwhile), its key, unique
///   constraints and indexes are dropped, and the statements that make them again (with
///   their comments, which a store's managed indexes carry) kept in a temporary table. The
///   drop waits at most 100 ms for the table's lock: while another transaction reads the
///   table, everything stays and the rows go in under their indexes, as before. So it does
///   when anything else stops the drop (no right to make temporary tables or to alter the
///   table, a key another table's foreign key depends on): the block's drops are undone
///   together and the write goes on. Once dropped, readers in other transactions wait for
///   the write's end instead of reading the empty table.
/// - ``restore``, before any statement that could use them (anything but a `COPY` into the
///   table and statements declaring only other tables, ``StatementFusion``) and before the
///   write's `COMMIT`: the kept statements run, in order, and the table of them goes. A
///   duplicate key (the context's checks keep them out of one write into an empty table)
///   would fail the write there, writing nothing, instead of at the row's insert.
enum IndexDeferral {
    /// The first `COPY` into a table sends at least this many rows for its indexes to wait:
    /// below it, dropping and building them would cost more than it saves.
    static let rows = 5_000

    /// For `table`, quoted as in SQL; nil for a name the block's quoting cannot hold.
    static func drop(_ table: String) -> String? {
        guard !table.contains("$") else { return nil }
        // As a literal holding the quoted name (format's %s keeps it quoted; regclass reads it).
        let literal = "'" + table.replacingOccurrences(of: "'", with: "''") + "'"
        return """
            DO $schemagen$ DECLARE r record; previous text := current_setting('lock_timeout'); BEGIN \
            IF EXISTS (SELECT FROM \(table)) THEN RETURN; END IF; \
            PERFORM set_config('lock_timeout', '100ms', true); \
            BEGIN \
            CREATE TEMPORARY TABLE IF NOT EXISTS \(keptTable) (position serial, statement text NOT NULL) ON COMMIT DROP; \
            FOR r IN SELECT conname, pg_get_constraintdef(oid) AS definition FROM pg_constraint \
            WHERE conrelid = \(literal)::regclass AND contype IN ('p', 'u') ORDER BY conname LOOP \
            INSERT INTO \(keptTable) (statement) VALUES (format('ALTER TABLE %s ADD CONSTRAINT %I %s', \(literal), r.conname, r.definition)); \
            EXECUTE format('ALTER TABLE %s DROP CONSTRAINT %I', \(literal), r.conname); \
            END LOOP; \
            FOR r IN SELECT c.relname, pg_get_indexdef(c.oid) AS definition, obj_description(c.oid, 'pg_class') AS note \
            FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = \(literal)::regclass ORDER BY c.relname LOOP \
            INSERT INTO \(keptTable) (statement) VALUES (r.definition); \
            IF r.note IS NOT NULL THEN INSERT INTO \(keptTable) (statement) VALUES (format('COMMENT ON INDEX %I IS %L', r.relname, r.note)); END IF; \
            EXECUTE format('DROP INDEX %I', r.relname); \
            END LOOP; \
            EXCEPTION WHEN OTHERS THEN NULL; \
            END; \
            PERFORM set_config('lock_timeout', previous, true); \
            END $schemagen$
            """
    }

    /// Makes again everything the drops of this transaction dropped.
    static let restore = """
        DO $schemagen$ DECLARE r record; BEGIN \
        IF to_regclass('pg_temp.\(keptTable)') IS NULL THEN RETURN; END IF; \
        FOR r IN SELECT statement FROM \(keptTable) ORDER BY position LOOP EXECUTE r.statement; END LOOP; \
        DROP TABLE \(keptTable); \
        END $schemagen$
        """

    /// The temporary table keeping the statements that make dropped keys and indexes again.
    private static let keptTable = "\"schemagen:deferred\""
}
