@_spi(SchemaStore) import SchemaRuntime

/// The schema's unique indexes as PostgreSQL unique constraints, so that the database itself
/// refuses duplicates, whoever writes (a process with a bug, a hand-written statement).
///
/// The store keeps uniqueness itself, with its collision policies and Swift's equality; the
/// database's rule must never refuse what the store allows:
/// - constraints are `DEFERRABLE INITIALLY DEFERRED`, checked at `COMMIT`, since a write may
///   pass through states that are not unique (two users swapping emails);
/// - only on integer, text and byte columns: equal values there are equal in Swift too
///   (text equal byte for byte is canonically equal), so the database is at most less
///   strict. Not on reals: PostgreSQL takes NaN equal to NaN, Swift does not;
/// - NULL never collides, in either.
extension PostgreSQLBackend {
    /// The unique constraints the layout wants, by name: the table and the creating statement.
    static func wantedUniqueConstraints(_ layout: StoreLayout) -> [String: (table: String, statement: String)] {
        var wanted: [String: (table: String, statement: String)] = [:]
        for entity in layout.entities {
            for (name, columns) in entity.uniqueIndexes where !columns.contains(where: { $0.type == .real }) {
                let constraint = entity.tableName + ":unique:" + name
                wanted[constraint] = (entity.tableName, """
                    ALTER TABLE \(quoted(entity.tableName)) ADD CONSTRAINT \(quoted(constraint)) \
                    UNIQUE (\(columns.map { quoted($0.name) }.joined(separator: ", "))) DEFERRABLE INITIALLY DEFERRED
                    """)
            }
        }
        return wanted
    }

    /// Whether `name` is a constraint the store manages (made and dropped with the schema).
    static func isManagedConstraint(_ name: String) -> Bool { name.contains(":unique:") }

    /// Makes the database's unique constraints those the schema wants, as ``syncIndexes(_:)``
    /// does its indexes (each constraint's comment holds the statement that made it).
    func syncUniqueConstraints(_ layout: StoreLayout) throws {
        let wanted = Self.wantedUniqueConstraints(layout)
        var present: [String: (table: String, statement: String)] = [:]
        for row in try execute("""
            SELECT c.conname, t.relname, obj_description(c.oid, 'pg_constraint') FROM pg_constraint c \
            JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace n ON n.oid = t.relnamespace \
            WHERE c.contype = 'u' AND n.nspname = current_schema()
            """) {
            guard case .text(let name) = row[0], Self.isManagedConstraint(name), case .text(let table) = row[1] else { continue }
            if case .text(let statement) = row[2] { present[name] = (table, statement) } else { present[name] = (table, "") }
        }
        for (name, constraint) in present.sorted(by: { $0.key < $1.key }) where wanted[name]?.statement != constraint.statement {
            try execute("ALTER TABLE \(quoted(constraint.table)) DROP CONSTRAINT \(quoted(name))")
        }
        for (name, constraint) in wanted.sorted(by: { $0.key < $1.key }) where present[name]?.statement != constraint.statement {
            try execute(constraint.statement)
            try execute("COMMENT ON CONSTRAINT \(quoted(name)) ON \(quoted(constraint.table)) IS '\(constraint.statement.replacingOccurrences(of: "'", with: "''"))'")
        }
    }
}
