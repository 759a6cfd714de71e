import ChatModels
import DeterministicRandom
@_spi(SchemaStore) import SchemaRuntime
@testable import SchemaStore
import Testing

/// How the commit log stores what a commit did to an entity (``CommitLog/Change``): read
/// back, it names the same row change and relations, as integers for ordinary entity types
/// and as text for ones with more relations than an integer has bits.
@Suite struct CommitLogTests {
    static func relations(_ count: Int) -> [RelationInfo] {
        (0..<count).map { RelationInfo(name: "r\($0)", slot: .toOne($0), target: ObjectIdentifier(User.self), targetName: "User", inverse: nil) }
    }

    @Test(arguments: [0, 1, 5, 61, 62, 70])
    func aChangeReadsBackAsWritten(relationCount: Int) throws {
        var random = SplitMix64(seed: UInt64(relationCount) + 1)
        let relations = Self.relations(relationCount)
        for _ in 0..<200 {
            let row = [RowChange.inserted, .updated, .deleted, .unchanged][Int(random.next() % 4)]
            let positions = relations.indices.filter { _ in random.next() % 3 == 0 }
            let stored = CommitLog.Change.stored(row, relinked: positions, of: relations)
            if relationCount <= CommitLog.Change.maximumBits {
                guard case .integer = stored else { Issue.record("\(relationCount) relations stored as \(stored)"); return }
            }
            let read = try #require(CommitLog.Change(stored: stored, relations: relations))
            #expect(read.row == row)
            #expect(read.relinked == positions.map { relations[$0].name })
        }
    }

    @Test func valuesNoWriterWritesAreRefused() {
        let relations = Self.relations(3)
        #expect(CommitLog.Change(stored: .integer(1 << 6), relations: relations) == nil, "a bit past the last relation")
        #expect(CommitLog.Change(stored: .integer(-1), relations: relations) == nil)
        #expect(CommitLog.Change(stored: .text("moved:r0"), relations: relations) == nil)
        #expect(CommitLog.Change(stored: .real(1), relations: relations) == nil)
    }
}

/// How a server store groups a commit's log entries by table before it writes them
/// (``PostgreSQLBackend/groups(of:)``): as grouping them in order does, whether a commit
/// names a few tables (found by comparing names) or many (found by hashing them).
@Suite struct CommitLogGroupingTests {
    @Test(arguments: [1, 3, 8, 9, 10, 30])
    func entriesAreGroupedByTableInOrder(tables: Int) {
        var random = SplitMix64(seed: UInt64(tables))
        let kinds: [CommitLog.Kind] = [.row, .link, .archive]
        for _ in 0..<200 {
            let count = Int(random.next() % 120)
            let entries = (0..<count).map { index in
                // Runs of one table, as a commit lists them, broken up at random.
                let table = Int(random.next() % UInt64(tables))
                return CommitLog.Entry(kind: kinds[table % kinds.count], name: "T\(table / kinds.count)", id: .integer(Int64(index)))
            }
            var expected: [[CommitLog.Entry]] = []
            for entry in entries {
                if let index = expected.firstIndex(where: { $0[0].kind == entry.kind && $0[0].name == entry.name }) {
                    expected[index].append(entry)
                } else {
                    expected.append([entry])
                }
            }
            let groups = PostgreSQLBackend.groups(of: entries)
            #expect(groups.map { $0.map(\.id) } == expected.map { $0.map(\.id) })
        }
    }
}
