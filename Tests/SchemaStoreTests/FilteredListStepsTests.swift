import ChatModels
import ChatWorkloads
import DeterministicRandom
import Foundation
@_spi(SchemaStoreTesting) @testable import SchemaStore
import SchemaRuntime
import Testing

/// A sorted, limited list of a table's rows whose filter asks an indexed field for one value
/// (`User.filter(\.status == .active).sorted(by: \.age).limit(20)`), read on demand from
/// SQLite in bounded steps (``FilteredListRead``): whether many rows hold the value, then a
/// walk down the sort's index or the value's rows. Answers equal a resident store's from
/// every step, and an enum's equality reads through its index.
@Suite struct FilteredListStepsTests {
    /// A seeded file, a resident store on it and one reading on demand (``RelatedListStepsTests/stores(indexed:changing:_:)``).
    static func stores(indexed: Bool = true, changing sql: String? = nil) throws -> (onDemand: Store, resident: Store, folder: URL) {
        try RelatedListStepsTests.stores(indexed: indexed, changing: sql, FilteredListFixture.seed)
    }

    /// Random lists of every status: the answers a resident store gives, from each step.
    @Test func answersEqualAResidentStoresFromEveryStep() throws {
        let (store, resident, folder) = try Self.stores()
        defer { store.close(); resident.close(); try? FileManager.default.removeItem(at: folder) }
        // How each read was answered, after the statement asking whether more than
        // `linkedRows` users hold the status: by their rows at once (away), by the walk, or
        // by their rows after a walk that found too few; or, asking for more than
        // `walkedLimit` rows, as one select.
        var answered: [String: Int] = [:]
        for list in FilteredListFixture.lists(300) {
            let before = store.onDemandStatistics.statements
            #expect(try store.read { list.ids(in: $0) } == list.ids(in: resident.context), "\(list)")
            switch (store.onDemandStatistics.statements - before, list.status) {
            case (1, _) where list.limit + list.offset > RelatedListRead.walkedLimit: answered["one select", default: 0] += 1
            case (2, .away): answered["the value's rows", default: 0] += 1
            case (2, _): answered["walk", default: 0] += 1
            case (3, .active), (3, .offline): answered["the value's rows after the walk", default: 0] += 1
            case let (statements, _): Issue.record("\(list) read in \(statements) statements")
            }
        }
        #expect(answered.count == 4 && answered.values.allSatisfy { $0 >= 10 }, "\(answered)")
    }

    /// SQLite's plans: an enum's equality reads through the enum's index (indexed in Swift's
    /// string order, as it was until 2026-12-08, no query could use it: every one scanned
    /// the table); the walk is a range of the sort's index, named (`INDEXED BY`) as SQLite
    /// would otherwise read the status's rows and sort them all.
    @Test func eachStepReadsThroughItsIndex() throws {
        let (store, resident, folder) = try Self.stores()
        defer { store.close(); resident.close(); try? FileManager.default.removeItem(at: folder) }
        let away = try #require(store.explainSQL(User.query(in: store.context).filter(\.status == .away)))
        #expect(away.plan == ["SEARCH User USING INDEX User:index:statusHash (status=?)"], "\(away)")
        let walk = try #require(store.explainSQL(User.query(in: store.context).filter(\.status == .active).sorted(by: \.age).limit(20)))
        #expect(walk.sql.contains("INDEXED BY") && walk.sql.contains("OFFSET 999"), "\(walk.sql)")
        #expect(walk.plan.first == "SEARCH User USING INDEX User:index:ageOrdered (age<?)", "\(walk.plan)")
        #expect(!walk.plan.contains { $0.hasPrefix("SCAN User") && !$0.contains("COVERING INDEX") }, "\(walk.plan)")
    }

    /// A file only resident stores wrote has no SQL indexes: lists are read as one select.
    @Test func aFileWithoutTheIndexesIsNotWalked() throws {
        let (store, resident, folder) = try Self.stores(indexed: false)
        defer { store.close(); resident.close(); try? FileManager.default.removeItem(at: folder) }
        for list in FilteredListFixture.lists(30) {
            let before = store.onDemandStatistics.statements
            #expect(try store.read { list.ids(in: $0) } == list.ids(in: resident.context), "\(list)")
            #expect(store.onDemandStatistics.statements - before == 1, "\(list)")
        }
    }

    /// A file whose status index an older version made (in Swift's string order, as until
    /// 2026-12-08), which a reader must not name: its equality cannot use it. Read only, the
    /// store leaves the index as it is; the lists are read as one select.
    @Test func anIndexAnOlderVersionMadeOtherwiseIsNotNamed() throws {
        let (store, resident, folder) = try Self.stores(changing: """
            DROP INDEX "User:index:statusHash"; CREATE INDEX "User:index:statusHash" ON "User" ("status" COLLATE "schemagen")
            """)
        defer { store.close(); resident.close(); try? FileManager.default.removeItem(at: folder) }
        for list in FilteredListFixture.lists(30) {
            let before = store.onDemandStatistics.statements
            #expect(try store.read { list.ids(in: $0) } == list.ids(in: resident.context), "\(list)")
            #expect(store.onDemandStatistics.statements - before == 1, "\(list)")
        }
        let active = try #require(store.explainSQL(User.query(in: store.context).filter(\.status == .active).sorted(by: \.age).limit(20)))
        #expect(!active.sql.contains("INDEXED BY"), "\(active.sql)")
    }
}
