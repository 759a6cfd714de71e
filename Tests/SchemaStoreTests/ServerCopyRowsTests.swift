import DeterministicRandom
import Foundation
@testable import SchemaStore
import SchemaRuntime
import Testing

/// Full-text postings spelled straight into `COPY`'s text (``ServerCopyRows/encodePostings(_:)``)
/// are exactly the rows ``ServerCopyRows/encode(_:)`` spells for them one by one: the
/// server reads a big write's postings from one or the other, so they must agree byte for
/// byte, whatever the terms hold and whatever the ids' type.
@Suite struct ServerCopyRowsTests {
    /// The bytes as text, so that a failure shows rows rather than numbers.
    private func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test(arguments: 0..<4) func postingsSpellTheRowsTheyStandFor(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        // Terms with COPY's escapes (tab, newline, carriage return, backslash) and
        // multi-byte characters among plain ones.
        let pieces = ["a", "chat", "\t", "\n", "\r", "\\", "\\N", "é", "e\u{301}", "17", "漢字", ""]
        func term() -> String { (0..<Int.random(in: 1...3, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined() }
        func id() -> StoredValue {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: .integer(Int64.random(in: Int64.min...Int64.max, using: &random) >> Int64.random(in: 0..<63, using: &random))
            case 1: .text(term())
            case 2: .real(Double(Int.random(in: -1000...1000, using: &random)) / 8)
            default: .blob(Data((0..<Int.random(in: 0..<5, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }))
            }
        }
        for _ in 0..<50 {
            let groups: [(term: String, postings: [(id: StoredValue, count: Int32)])] = (0..<Int.random(in: 0..<8, using: &random)).map { _ in
                (term(), (0..<Int.random(in: 1..<6, using: &random)).map { _ in (id(), Int32.random(in: 1...Int32.max, using: &random)) })
            }
            let rows = groups.flatMap { group in group.postings.map { [StoredValue.text(group.term), $0.id, .integer(Int64($0.count))] } }
            #expect(text(ServerCopyRows.encodePostings(groups[...])) == text(ServerCopyRows.encode(rows)))
            // A slice from the middle too, as a big write sends its postings in pieces.
            let start = groups.isEmpty ? 0 : Int.random(in: 0..<groups.count, using: &random)
            let middle = groups[start...]
            #expect(text(ServerCopyRows.encodePostings(middle))
                    == text(ServerCopyRows.encode(middle.flatMap { group in group.postings.map { [.text(group.term), $0.id, .integer(Int64($0.count))] } })))
        }
    }
}
