import DeterministicRandom
@testable import SchemaStorePostgres
import Testing

/// A text parameter is refused when it holds U+0000, which PostgreSQL's `text` cannot: the
/// byte search agrees with reading the text's UTF-8 element by element, wherever the NUL
/// is and whatever surrounds it.
@Suite struct ParameterTextTests {
    @Test(arguments: 0..<4) func aNULIsFoundWhereverItIs(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let pieces = ["a", "é", "日本", "🙂", "\u{0}", " ", "text of some length, "]
        var found = 0
        for _ in 0..<500 {
            let text = (0..<Int.random(in: 0...40, using: &random)).map { _ in
                // The NUL rarely, so that most texts hold none.
                let piece = pieces[Int.random(in: 0..<pieces.count, using: &random)]
                return piece == "\u{0}" && Int.random(in: 0..<4, using: &random) > 0 ? "b" : piece
            }.joined()
            let expected = text.utf8.contains(0)
            #expect(PostgresConnection.holdsNUL(text) == expected, "\(text.debugDescription)")
            if expected { found += 1 }
        }
        #expect(found > 10 && found < 490)
    }
}
