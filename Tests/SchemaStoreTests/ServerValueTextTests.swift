import DeterministicRandom
import Foundation
import SchemaRuntime
@testable import SchemaStore
import Testing

/// Values of any kind kept as text in a server database (ids in the commit log, archives,
/// overlay records) read back exactly as written.
@Suite struct ServerValueTextTests {
    @Test func everyKindOfValueReadsBackAsWritten() {
        var random = SplitMix64(seed: 5)
        var values: [StoredValue] = [.null, .integer(0), .integer(.min), .integer(.max), .real(-0.0), .real(.infinity), .real(1e-300),
                                     .text(""), .text("t:x"), .text("n"), .text("é\u{301} 🙂\n"), .blob(Data()), .blob(Data([0, 255, 10]))]
        for _ in 0..<200 {
            values.append(.integer(Int64.random(in: .min ... .max, using: &random)))
            values.append(.real(Double(bitPattern: UInt64.random(in: 0 ... .max, using: &random))))
        }
        for value in values {
            let decoded = ServerValueText.decode(ServerValueText.encode(value))
            if case .real(let real) = value, real.isNaN {
                guard case .real(let back)? = decoded else { Issue.record("\(value)"); continue }
                #expect(back.bitPattern == real.bitPattern)
            } else {
                #expect(decoded == value, "\(value)")
            }
        }
        // Text no encoding writes is not read as a value.
        for text in ["", "x", "i:", "i:1.5", "q:1", "b:***"] {
            #expect(ServerValueText.decode(text) == nil, "\(text)")
        }
    }
}
