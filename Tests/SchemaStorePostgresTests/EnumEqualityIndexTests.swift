import ChatModels
import Foundation
import SchemaRuntime
import SchemaStore
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// An equality on an enum field reads through the field's SQL index on PostgreSQL too. The
/// index was an expression in Swift's string order (`normalize(status, NFC) COLLATE "C"`),
/// which the equality, comparing the text as stored, could not use: every `status == .away`
/// read the whole table.
@Suite struct EnumEqualityIndexTests {
    @Test func aRareStatusIsFoundThroughItsIndex() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("enumindex")
        let writer = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .resident))
        try writer.write { context in
            for n in 0..<3_000 {
                try User(id: "u\(n)", name: "Name \(n)", age: n % 90, status: n % 100 == 0 ? .away : .active).save(to: &context)
            }
        }
        _ = try writer.executeOnOwnConnection("ANALYZE")
        writer.close()
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        defer { store.close() }
        let away = User.query(in: store.context).filter(\.status == .away)
        let (sql, plan) = try #require(store.explainSQL(away))
        #expect(plan.contains { $0.contains("statusHash") } && !plan.contains { $0.contains("Seq Scan") }, "\(sql)\n\(plan.joined(separator: "\n"))")
        #expect(try store.read { User.query(in: $0).filter(\.status == .away).resolve().count } == 30)
    }
}
