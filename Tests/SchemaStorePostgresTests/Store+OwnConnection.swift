@_spi(SchemaStoreTesting) @testable import SchemaStore
import SchemaRuntime
import Testing

extension Store {
    /// Runs `statements` in turn on this PostgreSQL store's own connection and returns the
    /// last one's rows: under the store's write lock, as every use of that connection by the
    /// store is. Used beside those, a test's `ANALYZE` once waited forever for its answer
    /// (GrownTableScanTests, in CI).
    func executeOnOwnConnection(_ statements: String...) throws -> [[StoredValue]] {
        let backend = try #require(backend as? PostgreSQLBackend)
        return try exclusively {
            var rows: [[StoredValue]] = []
            for statement in statements { rows = try backend.execute(statement) }
            return rows
        }
    }
}
