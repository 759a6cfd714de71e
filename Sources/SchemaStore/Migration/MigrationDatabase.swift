import SchemaRuntime

/// What ``StoreMigrator`` needs of a database: statements with bound values, and the
/// database's own spelling of tables, placeholders and storage order. SQLite
/// (``SQLiteMigrationDatabase``) and PostgreSQL (``PostgreSQLMigrationDatabase``) migrate
/// with the same plan-following code.
protocol MigrationDatabase {
    var dialect: any SQLDialect { get }
    func execute(_ sql: String, _ parameters: [StoredValue]) throws
    /// Calls `body` with each row `sql` returns, in order.
    func forEachRow(_ sql: String, _ parameters: [StoredValue], _ body: ([StoredValue]) throws -> Void) throws
    func hasTable(_ name: String) throws -> Bool
    func createTable(_ entity: any AnyEntityPersister) throws
    /// A link table, with its order index when it is to-many.
    func createTable(_ link: LinkLayout) throws
    func createOrderIndex(_ link: LinkLayout) throws
    /// Renames a table, with whatever else is named after it (PostgreSQL's key constraint).
    func renameTable(_ name: String, to newName: String) throws
    /// A bound value's placeholder, typed as `type` where the database needs to be told.
    func placeholder(_ index: Int, _ type: StoredType) -> String
}

extension MigrationDatabase {
    /// The first row `sql` returns, if any.
    func firstRow(_ sql: String, _ parameters: [StoredValue]) throws -> [StoredValue]? {
        var first: [StoredValue]?
        try forEachRow(sql, parameters) { row in if first == nil { first = row } }
        return first
    }
}
