import ChatModels
import ChatWorkloads
import Foundation
import SchemaRuntime
@_spi(SchemaStoreTesting) @testable import SchemaStore
import SchemaStorePostgres
import PostgresTestSupport
import Testing

/// A sorted, limited list of a table's rows whose filter asks an indexed field for one value
/// (`User.filter(\.status == .away).sorted(by: \.age).limit(20)`), read on demand from
/// PostgreSQL in bounded steps (``FilteredListRead``): one statement reading the value's
/// rows where few hold it, else a walk down the sort's index, then, when the walk found too
/// few, the value's rows. Answers equal a resident store's, and a value whose rows lie far
/// down the sort's index is never walked to them.
@Suite(.serialized) struct FilteredListReadTests {
    /// Random lists of every status (``FilteredListFixture``): the answers a resident store
    /// gives, from each step.
    @Test func answersEqualAResidentStoresFromEveryStep() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("filteredlists")
        let resident = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .resident))
        defer { resident.close() }
        try FilteredListFixture.seed(resident)
        _ = try resident.executeOnOwnConnection("ANALYZE")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        defer { store.close() }
        // How each read was answered: at once (the away users, or the walk), by the
        // status's rows after a walk that found too few, or, asking for more than
        // `walkedLimit` rows, as one select.
        var answered: [String: Int] = [:]
        for list in FilteredListFixture.lists(300) {
            let before = store.onDemandStatistics.statements
            #expect(try store.read { list.ids(in: $0) } == list.ids(in: resident.context), "\(list)")
            switch (store.onDemandStatistics.statements - before, list.status) {
            case (1, _) where list.limit + list.offset > RelatedListRead.walkedLimit: answered["one select", default: 0] += 1
            case (1, .away): answered["the value's rows", default: 0] += 1
            case (1, _): answered["walk", default: 0] += 1
            case (2, .active), (2, .offline): answered["the value's rows after the walk", default: 0] += 1
            case let (statements, _): Issue.record("\(list) read in \(statements) statements")
            }
        }
        #expect(answered.count == 4 && answered.values.allSatisfy { $0 >= 10 }, "\(answered)")
    }

    /// 3,000 active users of every age but 99 and 600 away, all aged 99: PostgreSQL, taking
    /// the away users for spread over the ages, plans the 20 youngest of them as a walk of
    /// the age index, past all 3,000 others, at every read. In steps, each read passes at
    /// most ``RelatedListRead/walkedRows`` entries of that index (and their ties), then
    /// reads the away users through the status index.
    @Test func aValueWhoseRowsLieFarDownTheSortsIndexIsNeverWalkedToThem() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("filteredlistwalk")
        let writer = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .resident))
        try writer.write { context in
            for n in 0..<3_600 {
                let away = n % 6 == 0
                try User(id: "u\(n)", name: "Name \(n)", age: away ? 99 : n % 99, status: away ? .away : .active).save(to: &context)
            }
        }
        _ = try writer.executeOnOwnConnection("ANALYZE")
        writer.close()
        let admin = try PostgresConnection(cluster.configuration(database: "filteredlistwalk"))
        defer { admin.close() }
        let before = try RelatedListReadTests.indexReads(admin, table: "User", index: "ageOrdered")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        let reads = 20
        for _ in 0..<reads {
            let youngest = try store.read { context in
                User.query(in: context).filter(\.status == .away).sorted(by: \.age).limit(20).resolve().map(\.id)
            }
            #expect(youngest == (0..<20).map { "u\($0 * 6)" })
        }
        store.close()
        let walked = try RelatedListReadTests.indexReads(admin, table: "User", index: "ageOrdered") - before
        // The walk's 1,000 rows, and the 30 or so aged as the last of them.
        #expect(walked > 0, "the reads walked the index")
        #expect(walked <= Int64(reads * (RelatedListRead.walkedRows + 40)), "\(reads) reads read \(walked) entries of the age index")
    }

    /// The walk's end falls inside a group of away users of one age: 995 users aged 0 (20
    /// of them away), then 10 away aged 1, of which the walk's first 1,000 rows hold 5, and
    /// 600 older ones (so that the list is walked for). The first 5 of the 10 were moved
    /// away and back (PostgreSQL's index holds equal keys in the order of their rows, so it
    /// now holds them last), and they come first in the list. The walk reads the whole
    /// group; cut at its end, it would answer with the wrong 5.
    @Test func anAgeGroupCutByTheWalksEndIsReadWhole() throws {
        guard let cluster = try PostgresDialectTests.cluster() else { return }
        defer { cluster.stop() }
        let configuration = try cluster.createDatabase("filteredlistties")
        let resident = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .resident))
        defer { resident.close() }
        try resident.write { context in
            for n in 0..<975 { try User(id: "active \(n)", name: "A", age: 0, status: .active).save(to: &context) }
            for n in 0..<20 { try User(id: "away young \(n)", name: "B", age: 0, status: .away).save(to: &context) }
            for n in 0..<10 { try User(id: "away tied \(n)", name: "C", age: 1, status: .away).save(to: &context) }
            for n in 0..<600 { try User(id: "away old \(n)", name: "D", age: 2 + n % 50, status: .away).save(to: &context) }
        }
        for age in [5, 1] {
            try resident.write { context in
                for n in 0..<5 {
                    var user = try #require(User.query("away tied \(n)", in: context).resolve())
                    user.age = age
                    try user.save(to: &context)
                }
            }
        }
        _ = try resident.executeOnOwnConnection("ANALYZE")
        let store = try Store(.postgres(configuration), schema: ChatModelsSchema.self, options: Store.Options(residency: .onDemand))
        defer { store.close() }
        let youngest: @Sendable (Context) -> [String] = { context in
            User.query(in: context).filter(\.status == .away).sorted(by: \.age).limit(25).resolve().map(\.id)
        }
        let before = store.onDemandStatistics.statements
        let answer = try store.read(youngest)
        #expect(store.onDemandStatistics.statements - before == 1, "the walk answered")
        #expect(answer == youngest(resident.context))
        #expect(answer.suffix(5) == (0..<5).map { "away tied \($0)" })
    }
}
