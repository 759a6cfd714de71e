import DeterministicRandom
@testable import SchemaRuntime
import Testing

/// The tokenizer's fast path for ASCII text (``TextTokenizer/asciiTokens(_:)``) against its
/// general path (``TextTokenizer/unicodeTokens(_:)``), which defines what a token is: random
/// ASCII texts of words in every case, digits, separators of every kind and words longer
/// than any buffer, at the start, in the middle and at the end.
@Suite struct TextTokenizerTests {
    @Test(arguments: 0..<4) func asciiTextTokenizesAsTheGeneralPathDoes(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let pieces = ["a", "Z", "chat", "MeSSage", "17", "0", "x9Y", String(repeating: "Ab1", count: 30),
                      " ", "  ", "\t", "\n", "-", ".", "'", "_", "@", "~", "\u{7F}", "\u{0}"]
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0..<9, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            let fast = TextTokenizer.asciiTokens(text)
            #expect(fast == TextTokenizer.unicodeTokens(text), "\(text.debugDescription)")
            #expect(TextTokenizer.tokens(text) == TextTokenizer.unicodeTokens(text))
        }
        // Any byte past ASCII leaves it to the general path.
        #expect(TextTokenizer.asciiTokens("Café au lait") == nil)
        #expect(TextTokenizer.tokens("Café au LAIT") == ["café", "au", "lait"])
    }
}
