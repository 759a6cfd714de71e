import ChatModels
import Foundation
import SchemaRuntime
@_spi(SchemaStoreTesting) @testable import SchemaStore
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// A write's statements run on generic plans (`plan_cache_mode = force_generic_plan` for the
/// transaction): PostgreSQL would otherwise plan each prepared one again for its values on
/// its first five runs, and some (an array of rows) on every run. The setting goes with the
/// write lock in writes that read nothing first, so it is checked here on the server, in
/// every kind of write: resident, on demand assuming what it creates is new, and on demand
/// reading first. (`pg_prepared_statements` counts plans from PostgreSQL 14; the tests run
/// against 15.)
@Suite(.serialized) struct GenericPlanTests {
    private struct Missing: Error {}

    /// The prepared statements of `store`'s own connection that write rows (not the
    /// metadata its opening records, outside any write): each one's text and how many
    /// times the server planned it generically and for its values.
    private static func preparedWrites(_ store: Store) throws -> [(sql: String, generic: Int64, custom: Int64)] {
        try store.executeOnOwnConnection("SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements").compactMap { row in
            guard case .text(let sql) = row[0], sql.hasPrefix("INSERT") || sql.hasPrefix("WITH"), !sql.contains("\"schemagen:meta\""),
                  case .integer(let generic) = row[1], case .integer(let custom) = row[2] else { return nil }
            return (sql, generic, custom)
        }
    }

    @Test(arguments: ["resident", "on demand, assumed new", "on demand, reading first"])
    func writeStatementsRunOnGenericPlans(mode: String) throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("plans")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self,
                              options: Store.Options(residency: mode == "resident" ? .resident : .onDemand))
        try AssumedNewWriteTests.seed(store)
        for index in 0..<12 {
            try store.write { context in
                if mode == "on demand, reading first" {
                    // A read in the closure: the write reads before it spells its statements
                    // (the user taken for new first, the write runs again reading it).
                    guard User.query("u1", in: context).resolve() != nil else { throw Missing() }
                }
                try Message(id: "p\(index)", text: "words \(index)", editedAt: Date(timeIntervalSince1970: 5), tags: ["a"],
                            author: .id("u1"), chat: .id("c1")).save(to: &context)
            }
        }
        let writes = try Self.preparedWrites(store)
        // Prepared from their second run: the message's insert ran at least 10 times by name.
        #expect(writes.contains { $0.generic >= 10 }, "\(writes)")
        for write in writes {
            #expect(write.custom == 0, "planned for its values \(write.custom) times: \(write.sql)")
        }
    }
}
