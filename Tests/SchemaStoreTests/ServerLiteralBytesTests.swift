import DeterministicRandom
@testable import SchemaStore
import Testing

/// Numbers spelled as the bytes PostgreSQL reads them from (``ServerLiteralBytes``), the
/// spelling of every integer in a big write's `COPY` rows and array literals.
@Suite struct ServerLiteralBytesTests {
    /// Integers of every length, their extremes and signs, appended after what the buffer
    /// already holds: the bytes added are exactly Swift's own decimal spelling, and what was
    /// there is untouched.
    @Test(arguments: 0..<4) func integersAreSpelledAsTheirDecimalDigits(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var integers: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, .max, .min, .max - 1, .min + 1]
        for _ in 0..<2_000 {
            // A random number of digits, so short and long spellings are both common.
            let magnitude = Int64.random(in: 0...Int64.max, using: &random) >> Int64.random(in: 0..<63, using: &random)
            integers.append(Bool.random(using: &random) ? magnitude : -magnitude)
        }
        for integer in integers {
            let prefix = Array("x\t".utf8.prefix(Int.random(in: 0...2, using: &random)))
            var bytes = prefix
            ServerLiteralBytes.append(integer, to: &bytes)
            #expect(bytes == prefix + Array(String(integer).utf8), "\(integer)")
        }
    }
}
