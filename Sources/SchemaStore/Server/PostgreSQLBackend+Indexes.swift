@_spi(SchemaStore) import SchemaRuntime

extension PostgreSQLBackend {
    /// The SQL indexes the layout declares (``SQLIndex``: the schema's ordered, hash and
    /// unique indexes, and each link table's index by target), by name, with the statement
    /// that creates each.
    static func wantedIndexes(_ layout: StoreLayout) -> [String: String] {
        let dialect = PostgreSQLDialect()
        var wanted: [String: String] = [:]
        for entity in layout.entities {
            for index in entity.sqlIndexes { wanted[index.name] = index.createStatement(dialect) }
        }
        for link in layout.links {
            let index = SQLIndex.linkTargets(link.name)
            wanted[index.name] = index.createStatement(dialect)
        }
        return wanted
    }

    /// Creates the SQL indexes the layout declares and drops the managed ones it no longer
    /// declares, or declares differently. Called by every writer's open, inside its
    /// transaction; an index already in place costs nothing.
    ///
    /// PostgreSQL spells an index's definition its own way, so each managed index carries
    /// the statement that made it as its comment, and the comparison is of those.
    func syncIndexes(_ layout: StoreLayout) throws {
        let wanted = Self.wantedIndexes(layout)
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
