import DeterministicRandom
@_spi(StoreServer) @testable import SchemaStore
import Testing

/// Texts as keys hashed by samples (``SQLTextKey``): a dictionary keyed by them finds what
/// one keyed by the whole texts finds, however alike the texts, because equality still
/// compares every byte.
@Suite struct SQLTextKeyTests {
    /// Random texts built to defeat the samples (same length, same first, middle and last
    /// bytes, one byte apart elsewhere), short ones hashed whole, and multi-byte characters:
    /// stored and looked up against a dictionary keyed by the texts themselves.
    @Test(arguments: 0..<4) func keysFindWhatTheTextsFind(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let base = Array(repeating: "INSERT INTO \"Message\" (id) SELECT * FROM unnest($1::bigint[]) ", count: 4).joined()
        func text() -> String {
            var bytes = Array(base.utf8.prefix(Int.random(in: 1...base.utf8.count, using: &random)))
            // One byte changed away from the samples' places, most of the time.
            if bytes.count > 3 * SQLTextKey.sampleLength, Bool.random(using: &random) {
                let place = SQLTextKey.sampleLength + Int.random(in: 0..<(bytes.count - 3 * SQLTextKey.sampleLength), using: &random)
                bytes[place] = UInt8(ascii: "a") + UInt8.random(in: 0..<3, using: &random)
            }
            return String(decoding: bytes, as: UTF8.self) + (Bool.random(using: &random) ? "é" : "")
        }
        var keyed: [SQLTextKey: Int] = [:]
        var reference: [String: Int] = [:]
        for step in 0..<2000 {
            let sql = text()
            if Bool.random(using: &random) {
                keyed[SQLTextKey(sql)] = step
                reference[sql] = step
            }
            #expect(keyed[SQLTextKey(sql)] == reference[sql], "\(sql)")
        }
        #expect(keyed.count == reference.count)
        #expect(reference.count > 100)
    }

    @Test func equalTextsHashAlike() {
        let sql = String(repeating: "SELECT 1; ", count: 30)
        let copy = String(decoding: Array(sql.utf8), as: UTF8.self)
        #expect(SQLTextKey(sql) == SQLTextKey(copy))
        #expect(SQLTextKey(sql).hashValue == SQLTextKey(copy).hashValue)
        #expect(SQLTextKey(sql) != SQLTextKey(sql + " "))
    }
}
