import Foundation

/// Splits text into lowercase tokens of letters and digits; everything else separates.
/// Full-text indexes and `matches` queries use the same tokenizer, so their results agree.
public enum TextTokenizer {
    public static func tokens(_ text: String) -> [String] {
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
