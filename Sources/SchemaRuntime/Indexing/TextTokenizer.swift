import Foundation

/// Splits text into case-folded tokens of letters and digits (with the combining marks that
/// follow them); every other scalar separates.
///
/// Text is first decomposed (NFD), so canonically equivalent spellings (`"é"` and
/// `"e\u{301}"`, `"≠"` and `"=\u{338}"`) give the same scalars. Tokens are then decided
/// scalar by scalar and folded scalar by scalar (``folded(_:)``); a combining mark looks only
/// at the scalar before it (it continues a word, or separates after a separator). That is what
/// lets a full-text index narrow a `contains` condition safely: a word inside a needle, with a
/// separator on each side, is a token of every text that contains the needle. (Grapheme
/// clusters would not do: in `"cafe\u{301}bar"` the needle `"\u{301}bar"` starts inside
/// the cluster `e\u{301}`.) Full-text indexes and `matches` queries use the same tokenizer,
/// so their results agree.
public enum TextTokenizer {
    public static func tokens(_ text: String) -> [String] {
        asciiTokens(text) ?? unicodeTokens(text)
    }

    /// The distinct three-character pieces of each word of `text` (folded), in order: what
    /// SwiftletModel's fuzzy `matches` looks for. Words shorter than three characters give
    /// none.
    public static func trigrams(_ text: String) -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for token in tokens(text) {
            let characters = Array(token)
            guard characters.count >= 3 else { continue }
            for start in 0...(characters.count - 3) {
                let piece = String(characters[start..<(start + 3)])
                if seen.insert(piece).inserted { result.append(piece) }
            }
        }
        return result
    }

    /// `text` decomposed (NFD) and case-folded scalar by scalar: each scalar's lowercase
    /// mapping, with final sigma folded to sigma. Unlike `lowercased()`, which looks at
    /// neighbouring letters, this maps every scalar the same way wherever it stands, so folding
    /// keeps substrings substrings. Case-insensitive `contains`, `hasPrefix` and `hasSuffix`
    /// compare folded text.
    public static func folded(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text.lowercased() }
        var result = String.UnicodeScalarView()
        for scalar in decomposed(text).unicodeScalars { appendFolded(scalar, to: &result) }
        return String(result)
    }

    /// The canonical decomposition (NFD) that folding and tokenizing start from, with
    /// `İ` (U+0130, capital I with dot above) read as `i` first: its decomposition `I` + U+0307
    /// would otherwise lower to `i̇`, and "istanbul" would not find "İstanbul".
    static func decomposed(_ text: String) -> String {
        guard text.unicodeScalars.contains("\u{0130}") else { return text.decomposedStringWithCanonicalMapping }
        var view = String.UnicodeScalarView()
        for scalar in text.unicodeScalars { view.append(scalar == "\u{0130}" ? "i" : scalar) }
        return String(view).decomposedStringWithCanonicalMapping
    }

    /// Whether `scalar` (already folded) starts or continues words: a letter or a number.
    static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII {
            switch scalar.value {
            case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
            default: return false
            }
        }
        let properties = scalar.properties
        return properties.isAlphabetic || properties.numericType != nil
    }

    /// Whether `scalar` is a combining mark: part of the word before it, if there is one.
    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        guard !scalar.isASCII else { return false }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }

    private static func appendFolded(_ scalar: Unicode.Scalar, to result: inout String.UnicodeScalarView) {
        if scalar.isASCII {
            result.append(scalar.value >= 0x41 && scalar.value <= 0x5A ? Unicode.Scalar(scalar.value + 32)! : scalar)
        } else if scalar == "\u{03C2}" {
            result.append("\u{03C3}")  // final sigma folds to sigma
        } else if scalar.properties.changesWhenLowercased {
            result.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
        } else {
            result.append(scalar)
        }
    }

    /// The fast path for ASCII text: one pass over the UTF-8 bytes. Returns nil on any
    /// non-ASCII byte, so the result always equals ``unicodeTokens(_:)``. Each token is made
    /// straight from its bytes (lowered only when it holds a capital): a word buffer captured
    /// by a nested function made every byte's write go through a box and an exclusivity check.
    static func asciiTokens(_ text: String) -> [String]? {
        var text = text
        return text.withUTF8 { bytes -> [String]? in
            var tokens: [String] = []
            // About one token per five bytes in prose; growing from empty took three copies.
            tokens.reserveCapacity(bytes.count / 5 + 1)
            var start = -1
            var hasCapital = false
            for index in bytes.indices {
                switch bytes[index] {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    if start < 0 { start = index }
                case UInt8(ascii: "A")...UInt8(ascii: "Z"):
                    if start < 0 { start = index }
                    hasCapital = true
                case 0x80...:
                    return nil
                default:
                    if start >= 0 { tokens.append(asciiToken(bytes[start..<index], lowering: hasCapital)) }
                    start = -1
                    hasCapital = false
                }
            }
            if start >= 0 { tokens.append(asciiToken(bytes[start...], lowering: hasCapital)) }
            return tokens
        }
    }

    /// ASCII letters and digits as a token, capitals lowered when `lowering`.
    private static func asciiToken(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, lowering: Bool) -> String {
        guard lowering else { return String(decoding: bytes, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (offset, byte) in bytes.enumerated() {
                buffer[offset] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
            }
            return bytes.count
        }
    }

    static func unicodeTokens(_ text: String) -> [String] {
        var tokens: [String] = []
        var current = String.UnicodeScalarView()
        var folded = String.UnicodeScalarView()
        for scalar in decomposed(text).unicodeScalars {
            folded.removeAll(keepingCapacity: true)
            appendFolded(scalar, to: &folded)
            for piece in folded {
                if isWordScalar(piece) || (!current.isEmpty && isMark(piece)) {
                    current.append(piece)
                } else if !current.isEmpty {
                    tokens.append(String(current))
                    current.removeAll(keepingCapacity: true)
                }
            }
        }
        if !current.isEmpty { tokens.append(String(current)) }
        return tokens
    }
}

/// Okapi BM25 relevance, with the usual k1 = 1.2, b = 0.75.
enum BM25 {
    static let k1 = 1.2
    static let b = 0.75

    /// How rare a token is: `log(1 + (N - df + 0.5) / (df + 0.5))` for N documents, df of
    /// which contain it.
    static func idf(documentFrequency: Int, documents: Int) -> Double {
        log(1 + (Double(documents - documentFrequency) + 0.5) / (Double(documentFrequency) + 0.5))
    }

    /// One query token's share of a document's score: its `idf`, its count in the document,
    /// and the document's length against the average.
    static func term(idf: Double, frequency: Int, length: Int, averageLength: Double) -> Double {
        let tf = Double(frequency)
        let norm = tf + k1 * (1 - b + b * Double(length) / max(averageLength, 1))
        return idf * tf * (k1 + 1) / norm
    }
}
