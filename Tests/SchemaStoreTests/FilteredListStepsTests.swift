import ChatModels
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
    /// 3,000 users: 1,800 active aged 0..<80, 300 away of every age (few enough to read at
    /// once), 900 offline, all but 30 aged 80..<90 (a walk by age from the youngest passes
    /// a few of them, often fewer than a limit asks for); 60 names among them, so that sorts
    /// by name tie across the walk's end.
    static func seed(_ store: Store) throws {
        var random = SplitMix64(seed: 3_008)
        try store.write { context in
            for n in 0..<3_000 {
                let (status, age): (UserStatus, Int) = switch n % 10 {
                case 0: (.away, Int.random(in: 0..<90, using: &random))
                case 1, 2, 3: (.offline, Int.random(in: n % 100 == 1 ? 0..<40 : 80..<90, using: &random))
                default: (.active, Int.random(in: 0..<80, using: &random))
                }
                try User(id: "u\(n)", name: "Name \(Int.random(in: 0..<60, using: &random))", age: age, status: status).save(to: &context)
            }
        }
    }

    /// A seeded file, a resident store on it and one reading on demand (``RelatedListStepsTests/stores(indexed:changing:_:)``).
    static func stores(indexed: Bool = true, changing sql: String? = nil) throws -> (onDemand: Store, resident: Store, folder: URL) {
        try RelatedListStepsTests.stores(indexed: indexed, changing: sql, seed)
    }

    /// A limited list of the users holding one status, sorted by age or name either way,
    /// perhaps only those of at least an age.
    struct UserList: Sendable, CustomStringConvertible {
        let status: UserStatus
        let byName: Bool
        let descending: Bool
        let limit: Int
        let offset: Int
        let minimumAge: Int?

        func ids(in context: Context) -> [String] {
            var users = User.query(in: context).filter(\.status == status)
            if let minimumAge { users = users.filter(\.age >= minimumAge) }
            let sorted = switch (byName, descending) {
            case (false, false): users.sorted(by: \.age)
            case (false, true): users.sorted(by: \.age.desc)
            case (true, false): users.sorted(by: \.name)
            case (true, true): users.sorted(by: \.name.desc)
            }
            return sorted.limit(limit, offset: offset).resolve().map(\.id)
        }

        var description: String {
            "\(status) by \(byName ? "name" : "age")\(descending ? " descending" : ""), limit \(limit), offset \(offset), age >= \(minimumAge.map(String.init) ?? "any")"
        }
    }

    static func lists(_ count: Int) -> [UserList] {
        var random = SplitMix64(seed: 30)
        return (0..<count).map { round in
            UserList(status: [.active, .away, .offline][round % 3], byName: Bool.random(using: &random), descending: Bool.random(using: &random),
                     limit: [1, 3, 7, 20, 50, 51][Int.random(in: 0..<6, using: &random)],
                     offset: Bool.random(using: &random) ? 0 : Int.random(in: 1..<40, using: &random),
                     minimumAge: Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 0..<90, using: &random) : nil)
        }
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
        for list in Self.lists(300) {
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
        for list in Self.lists(30) {
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
        for list in Self.lists(30) {
            let before = store.onDemandStatistics.statements
            #expect(try store.read { list.ids(in: $0) } == list.ids(in: resident.context), "\(list)")
            #expect(store.onDemandStatistics.statements - before == 1, "\(list)")
        }
        let active = try #require(store.explainSQL(User.query(in: store.context).filter(\.status == .active).sorted(by: \.age).limit(20)))
        #expect(!active.sql.contains("INDEXED BY"), "\(active.sql)")
    }
}
