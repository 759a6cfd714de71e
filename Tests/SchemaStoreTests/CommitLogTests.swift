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
