import SchemaRuntime

/// An SQLite connection as ``StoreMigrator`` uses it: statements cached by their text (a
/// migration runs the same insert for every row).
struct SQLiteMigrationDatabase: MigrationDatabase {
    let database: SQLiteDatabase

    var dialect: any SQLDialect { SQLiteDialect() }

    func execute(_ sql: String, _ parameters: [StoredValue]) throws {
        try database.statement(cacheKey: "migration " + sql, sql).run(parameters)
    }

    func forEachRow(_ sql: String, _ parameters: [StoredValue], _ body: ([StoredValue]) throws -> Void) throws {
        let statement = try database.statement(cacheKey: "migration " + sql, sql)
        try statement.bind(parameters)
        defer { statement.reset() }
        let count = statement.columnCount
        while try statement.step() { try body((0..<count).map(statement.value(at:))) }
    }

    func hasTable(_ name: String) throws -> Bool { try database.hasTable(name) }
    func createTable(_ entity: any AnyEntityPersister) throws { try SQLiteBackend.createTable(entity, in: database) }
    func createTable(_ link: LinkLayout) throws { try SQLiteBackend.createTable(link, in: database) }
    func createOrderIndex(_ link: LinkLayout) throws { try SQLiteBackend.createOrderIndex(link, in: database) }

    func renameTable(_ name: String, to newName: String) throws {
        try database.execute("ALTER TABLE \(quoted(name)) RENAME TO \(quoted(newName))")
    }

    // SQLite converts a bound value to the column's affinity itself.
    func placeholder(_ index: Int, _ type: StoredType) -> String { "?" }
}
