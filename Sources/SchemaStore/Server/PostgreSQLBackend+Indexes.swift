@_spi(SchemaStore) import SchemaRuntime

extension PostgreSQLBackend {
    /// Creates the SQL indexes the layout declares and drops the managed ones it no longer
    /// declares, or declares differently. Called by every writer's open, inside its
    /// transaction; an index already in place costs nothing.
    ///
    /// PostgreSQL spells an index's definition its own way, so each managed index carries
    /// the statement that made it as its comment, and the comparison is of those.
    func syncIndexes(_ layout: StoreLayout) throws {
        let wanted = SQLIndex.wanted(by: layout, in: PostgreSQLDialect())
        var present: [String: String] = [:]
        for row in try execute("""
            SELECT c.relname, obj_description(c.oid, 'pg_class') FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace \
            WHERE c.relkind = 'i' AND n.nspname = current_schema()
            """) {
            guard case .text(let name) = row[0], SQLIndex.isManaged(name) else { continue }
            if case .text(let statement) = row[1] { present[name] = statement } else { present[name] = "" }
        }
        for (name, statement) in present.sorted(by: { $0.key < $1.key }) where wanted[name] != statement {
            try execute("DROP INDEX \(quoted(name))")
        }
        for (name, statement) in wanted.sorted(by: { $0.key < $1.key }) where present[name] != statement {
            try execute(statement)
            // COMMENT takes no parameters: the statement as a string literal.
            try execute("COMMENT ON INDEX \(quoted(name)) IS '\(statement.replacingOccurrences(of: "'", with: "''"))'")
        }
    }
}
