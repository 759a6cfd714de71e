import ChatModels
import ChatWorkloads
import Foundation
@_spi(SchemaStoreTesting) @testable import SchemaStore
import SchemaRuntime
import Testing

/// A sorted, limited list of the rows one row links to, read on demand from SQLite in
/// bounded steps (``RelatedListRead``, ``ListSteps/crossJoin``): SQLite planned the
/// one join by reading every link and sorting their rows, so the newest 20 of a chat's
/// 100,000 messages cost as much as all of them. Each step is a statement of its own: whether
/// the chat has more links than are read at once, then the walk or the links. Answers equal a
/// resident store's, ties across the walk's end included, and the walk reads a range of an
/// index.
@Suite struct RelatedListStepsTests {
    /// A file seeded by a writer reading on demand (which creates the SQL indexes; with
    /// `indexed` false, a resident one, which does not), then changed by `sql` if given, a
    /// resident store on it and one reading on demand.
    static func stores(indexed: Bool = true, changing sql: String? = nil,
                       _ seed: (Store) throws -> Void) throws -> (onDemand: Store, resident: Store, folder: URL) {
        let url = try OnDemandDifferentialTests.temporaryFile()
        let writer = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(residency: indexed ? .onDemand : .resident))
        try seed(writer)
        writer.close()
        if let sql {
            let database = try SQLiteDatabase(path: url.path)
            defer { database.close() }
            try database.execute(sql)
        }
        let resident = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(readOnly: true, residency: .resident))
        let onDemand = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(readOnly: true, residency: .onDemand))
        return (onDemand, resident, url.deletingLastPathComponent())
    }

    /// Random limited lists of every chat's messages, newest or oldest first, some filtered,
    /// and of its users by name (``RelatedListFixture``): the answers a resident store gives,
    /// from each step.
    @Test func answersEqualAResidentStoresWhereverTheListsRowsLie() throws {
        let (store, resident, folder) = try Self.stores(RelatedListFixture.seed)
        defer { store.close(); resident.close(); try? FileManager.default.removeItem(at: folder) }
        // How each read was answered, after the statement asking whether the chat has more
        // than `linkedRows` links: by the links at once, by the walk, or by the links after a
        // walk that found too few rows; or, asking for more than `walkedLimit` rows, as one
        // join.
        var answered: [String: Int] = [:]
        for list in RelatedListFixture.messageLists(200) {
            let before = store.onDemandStatistics.statements
            let answer = try store.read { list.ids(in: $0) }
            #expect(answer == list.ids(in: resident.context), "\(list)")
            switch (store.onDemandStatistics.statements - before, list.isLong) {
            case (1, _) where list.limit + list.offset > RelatedListRead.walkedLimit: answered["one join", default: 0] += 1
            case (2, false): answered["links", default: 0] += 1
            case (2, true): answered["walk", default: 0] += 1
            case (3, true): answered["links after the walk", default: 0] += 1
            case let (statements, _): Issue.record("\(list) read in \(statements) statements")
            }
        }
        #expect(answered.count == 4 && answered.values.allSatisfy { $0 >= 10 }, "\(answered)")
        for (name, ids) in RelatedListFixture.userLists() {
            #expect(try store.read(ids) == ids(resident.context), "\(name)")
        }
    }

    /// The walk's end falls inside a group of messages with one timestamp
    /// (``RelatedListFixture/seedTiedGroup(_:walkedRows:linkedRows:)``): SQLite's walk is
    /// every row sorting no later than the last it passes, so it reads the whole group.
    @Test func aTimestampGroupCutByTheWalksEndIsReadWhole() throws {
        let (store, resident, folder) = try Self.stores {
            try RelatedListFixture.seedTiedGroup($0, walkedRows: RelatedListRead.walkedRows, linkedRows: RelatedListRead.linkedRows)
        }
        defer { store.close(); resident.close(); try? FileManager.default.removeItem(at: folder) }
        let before = store.onDemandStatistics.statements
        let answer = try store.read(RelatedListFixture.newestTied)
        #expect(store.onDemandStatistics.statements - before == 2, "the walk answered, after the count of links")
        #expect(answer == RelatedListFixture.newestTied(in: resident.context))
        #expect(answer.suffix(5) == RelatedListFixture.movedHalf)
    }

    /// SQLite's plan for the walk (what `explainSQL` shows for a list read in steps): a
    /// range of the timestamp index, each row probing the links by key; the one scan reads
    /// the walk's end, the index's first rows, bounded by its offset. Planted out, the range
    /// leaves a scan of the messages in index order, however far the list's rows lie.
    @Test func theWalkSearchesARangeOfItsIndex() throws {
        let (store, resident, folder) = try Self.stores(RelatedListFixture.seed)
        defer { store.close(); resident.close(); try? FileManager.default.removeItem(at: folder) }
        let list = Chat.query("busy", in: store.context).related(\.$messages).sorted(by: \.timestamp.desc).limit(20)
        let (sql, plan) = try #require(store.explainSQL(list))
        #expect(sql.contains("CROSS JOIN") && sql.contains("OFFSET 999"), "\(sql)")
        let steps = plan.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "|`- ")) }
        let walk = try #require(steps.firstIndex { $0.hasPrefix("SEARCH Message USING INDEX") && $0.hasSuffix("(timestamp>?)") }, "\(plan)")
        #expect(steps[walk...].contains("SEARCH Chat.messages USING PRIMARY KEY (owner=? AND target=?)"), "\(plan)")
        let scans = steps.filter { $0.hasPrefix("SCAN") }
        #expect(scans.count == 1 && scans[0].hasPrefix("SCAN Message USING COVERING INDEX"), "\(plan)")
    }

    /// A file only resident stores wrote has no SQL index on the timestamps: a walk would
    /// read and sort the whole table, so lists are read as one join (through their links).
    @Test func aFileWithoutTheSortsIndexIsNotWalked() throws {
        let (store, resident, folder) = try Self.stores(indexed: false, RelatedListFixture.seed)
        defer { store.close(); resident.close(); try? FileManager.default.removeItem(at: folder) }
        for list in RelatedListFixture.messageLists(40) {
            let before = store.onDemandStatistics.statements
            #expect(try store.read { list.ids(in: $0) } == list.ids(in: resident.context), "\(list)")
            #expect(store.onDemandStatistics.statements - before == 1, "\(list)")
        }
        let list = Chat.query("busy", in: store.context).related(\.$messages).sorted(by: \.timestamp.desc).limit(20)
        #expect(try !#require(store.explainSQL(list)).sql.contains("OFFSET 999"))
    }
}
