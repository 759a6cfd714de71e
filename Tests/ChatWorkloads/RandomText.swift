import DeterministicRandom

/// Short texts over a small vocabulary, so that full-text queries match many of them with
/// different counts and lengths (BM25 ties and orders), separated by spaces or commas.
public enum RandomText {
    public static let vocabulary = ["alpha", "beta", "gamma", "delta", "omega", "swift", "store", "query"]

    public static func next(_ random: inout SplitMix64) -> String {
        (0..<Int.random(in: 1...9, using: &random)).map { _ in vocabulary[Int.random(in: 0..<vocabulary.count, using: &random)] }
            .joined(separator: Bool.random(using: &random) ? " " : ", ")
    }

    /// One or two words of the vocabulary: a query.
    public static func query(_ random: inout SplitMix64) -> String {
        (0..<Int.random(in: 1...2, using: &random)).map { _ in vocabulary[Int.random(in: 0..<vocabulary.count, using: &random)] }
            .joined(separator: " ")
    }
}
