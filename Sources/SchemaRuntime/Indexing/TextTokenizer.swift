import Foundation

/// Splits text into lowercase tokens of letters and digits; everything else separates.
/// Full-text indexes and `matches` queries use the same tokenizer, so their results agree.
public enum TextTokenizer {
    public static func tokens(_ text: String) -> [String] {
        asciiTokens(text) ?? unicodeTokens(text)
    }

    /// The fast path for ASCII text: one pass over the UTF-8 bytes. Returns nil on any
    /// non-ASCII byte, so the result always equals `unicodeTokens`.
    private static func asciiTokens(_ text: String) -> [String]? {
        var text = text
        return text.withUTF8 { bytes -> [String]? in
            var tokens: [String] = []
            var word = [UInt8](repeating: 0, count: 32)
            var length = 0
            func flush() {
                if length > 0 {
                    tokens.append(String(decoding: word[0..<length], as: UTF8.self))
                    length = 0
                }
            }
            for byte in bytes {
                var lowered = byte
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): break
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): lowered = byte + 32
                case 0x80...: return nil
                default:
                    flush()
                    continue
                }
                if length == word.count { word.append(contentsOf: repeatElement(0, count: word.count)) }
                word[length] = lowered
                length += 1
            }
            flush()
            return tokens
        }
    }

    private static func unicodeTokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        for character in text.lowercased() {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else if !current.isEmpty {
                tokens.append(current)
                current = ""
            }
        }
        if !current.isEmpty { tokens.append(current) }
        return tokens
    }
}

/// Okapi BM25 relevance, with the usual k1 = 1.2, b = 0.75.
enum BM25 {
    static let k1 = 1.2
    static let b = 0.75

    /// The score of one document for a query.
    /// - Parameters:
    ///   - frequencies: for each query token, its count in the document.
    ///   - documentFrequencies: for each query token, how many documents contain it.
    static func score(frequencies: [Int], documentFrequencies: [Int], length: Int, averageLength: Double, documents: Int) -> Double {
        var score = 0.0
        for (frequency, documentFrequency) in zip(frequencies, documentFrequencies) where frequency > 0 {
            let idf = log(1 + (Double(documents - documentFrequency) + 0.5) / (Double(documentFrequency) + 0.5))
            let tf = Double(frequency)
            let norm = tf + k1 * (1 - b + b * Double(length) / max(averageLength, 1))
            score += idf * tf * (k1 + 1) / norm
        }
        return score
    }
}
