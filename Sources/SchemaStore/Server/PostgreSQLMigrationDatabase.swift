import SchemaRuntime

/// A PostgreSQL store as ``StoreMigrator`` uses it, inside the transaction that opens it.
struct PostgreSQLMigrationDatabase: MigrationDatabase {
    let backend: PostgreSQLBackend

    var dialect: any SQLDialect { PostgreSQLDialect() }

    func execute(_ sql: String, _ parameters: [StoredValue]) throws {
        try backend.execute(sql, parameters)
    }

    func forEachRow(_ sql: String, _ parameters: [StoredValue], _ body: ([StoredValue]) throws -> Void) throws {
        for row in try backend.execute(sql, parameters) { try body(row) }
    }

    func hasTable(_ name: String) throws -> Bool { try backend.hasTable(name) }
    func createTable(_ entity: any AnyEntityPersister) throws { try backend.createTable(entity) }
    func createTable(_ link: LinkLayout) throws { try backend.createTable(link) }
    func createOrderIndex(_ link: LinkLayout) throws { try backend.createOrderIndex(link) }
    func renameTable(_ name: String, to newName: String) throws { try backend.renameTable(name, to: newName) }

    /// Typed: PostgreSQL infers a bare parameter's type from where it stands, which for a
    /// value selected into a new column (`INSERT ... SELECT $1`) is text.
    func placeholder(_ index: Int, _ type: StoredType) -> String {
        "$\(index)::\(PostgreSQLBackend.columnType(type))"
    }
}
