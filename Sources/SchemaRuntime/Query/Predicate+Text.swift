import Foundation

/// Text conditions: `.string(\.text, contains: "hello")`, over one field or several at once
/// (the condition holds when any of them satisfies it, as in SwiftletModel). `String?`
/// fields take part too: nil has no text, so it contains, starts and ends with nothing and
/// matches no query (and the negated forms hold for it).
///
/// - `contains`, `hasPrefix`, `hasSuffix` and their negations compare case-insensitively
///   unless `caseSensitive`: both sides folded scalar by scalar (``TextTokenizer/folded(_:)``).
/// - `matches` is full-text search: every word of the query is a word of the fields, ranked
///   by BM25, answered by a full-text index over the fields when there is one.
/// - `fuzzyMatches` is SwiftletModel's `matches`: some three-letter piece of a query word
///   appears in a field (case-insensitively, where SwiftletModel compares the pieces with
///   the field as written). It finds more and ranks nothing; no index answers it.
/// - Regular expressions (`Regex`, `NSRegularExpression`, or a pattern string) match when
///   they find a match anywhere in some field.
extension EntityPredicate {
    private static func text(_ keyPaths: [PartialKeyPath<Entity>], _ operation: TextOperation, _ query: String,
                             caseSensitive: Bool = false, matcher: ((String) -> Bool)? = nil) -> EntityPredicate {
        EntityPredicate(.text(TextCondition(keyPaths: keyPaths, operation: operation, query: query, caseSensitive: caseSensitive,
                                      texts: { entity in keyPaths.compactMap { Self.text(entity, $0) } }, matcher: matcher)))
    }

    /// The text of a `String` or `String?` field; nil for a nil field.
    private static func text(_ entity: Entity, _ keyPath: PartialKeyPath<Entity>) -> String? {
        entity[keyPath: keyPath] as? String
    }

    // MARK: contains, prefix, suffix

    /// Some field contains `substring`.
    public static func string(_ keyPaths: KeyPath<Entity, String>..., contains substring: String, caseSensitive: Bool = false) -> EntityPredicate {
        text(keyPaths, .contains, substring, caseSensitive: caseSensitive)
    }

    /// No field contains `substring`.
    public static func string(_ keyPaths: KeyPath<Entity, String>..., notContains substring: String, caseSensitive: Bool = false) -> EntityPredicate {
        !text(keyPaths, .contains, substring, caseSensitive: caseSensitive)
    }

    /// Some field starts with `prefix`.
    public static func string(_ keyPaths: KeyPath<Entity, String>..., hasPrefix prefix: String, caseSensitive: Bool = false) -> EntityPredicate {
        text(keyPaths, .hasPrefix, prefix, caseSensitive: caseSensitive)
    }

    /// No field starts with `prefix` (SwiftletModel's spelling; ``string(_:notHasPrefix:caseSensitive:)-(KeyPath<Entity,String>...,_,_)`` is the same).
    public static func string(_ keyPaths: KeyPath<Entity, String>..., notHavingPrefix prefix: String, caseSensitive: Bool = false) -> EntityPredicate {
        !text(keyPaths, .hasPrefix, prefix, caseSensitive: caseSensitive)
    }

    /// No field starts with `prefix`.
    public static func string(_ keyPaths: KeyPath<Entity, String>..., notHasPrefix prefix: String, caseSensitive: Bool = false) -> EntityPredicate {
        !text(keyPaths, .hasPrefix, prefix, caseSensitive: caseSensitive)
    }

    /// Some field ends with `suffix`.
    public static func string(_ keyPaths: KeyPath<Entity, String>..., hasSuffix suffix: String, caseSensitive: Bool = false) -> EntityPredicate {
        text(keyPaths, .hasSuffix, suffix, caseSensitive: caseSensitive)
    }

    /// No field ends with `suffix` (SwiftletModel's spelling).
    public static func string(_ keyPaths: KeyPath<Entity, String>..., notHavingSuffix suffix: String, caseSensitive: Bool = false) -> EntityPredicate {
        !text(keyPaths, .hasSuffix, suffix, caseSensitive: caseSensitive)
    }

    /// No field ends with `suffix`.
    public static func string(_ keyPaths: KeyPath<Entity, String>..., notHasSuffix suffix: String, caseSensitive: Bool = false) -> EntityPredicate {
        !text(keyPaths, .hasSuffix, suffix, caseSensitive: caseSensitive)
    }

    /// Some optional field contains `substring`; nil contains nothing.
    public static func string(_ keyPaths: KeyPath<Entity, String?>..., contains substring: String, caseSensitive: Bool = false) -> EntityPredicate {
        text(keyPaths, .contains, substring, caseSensitive: caseSensitive)
    }

    /// No optional field contains `substring` (nil fields never do).
    public static func string(_ keyPaths: KeyPath<Entity, String?>..., notContains substring: String, caseSensitive: Bool = false) -> EntityPredicate {
        !text(keyPaths, .contains, substring, caseSensitive: caseSensitive)
    }

    /// Some optional field starts with `prefix`; nil starts with nothing.
    public static func string(_ keyPaths: KeyPath<Entity, String?>..., hasPrefix prefix: String, caseSensitive: Bool = false) -> EntityPredicate {
        text(keyPaths, .hasPrefix, prefix, caseSensitive: caseSensitive)
    }

    /// No optional field starts with `prefix`.
    public static func string(_ keyPaths: KeyPath<Entity, String?>..., notHavingPrefix prefix: String, caseSensitive: Bool = false) -> EntityPredicate {
        !text(keyPaths, .hasPrefix, prefix, caseSensitive: caseSensitive)
    }

    /// Some optional field ends with `suffix`; nil ends with nothing.
    public static func string(_ keyPaths: KeyPath<Entity, String?>..., hasSuffix suffix: String, caseSensitive: Bool = false) -> EntityPredicate {
        text(keyPaths, .hasSuffix, suffix, caseSensitive: caseSensitive)
    }

    /// No optional field ends with `suffix`.
    public static func string(_ keyPaths: KeyPath<Entity, String?>..., notHavingSuffix suffix: String, caseSensitive: Bool = false) -> EntityPredicate {
        !text(keyPaths, .hasSuffix, suffix, caseSensitive: caseSensitive)
    }

    /// Some of several `String` and `String?` fields contains `substring`. Any other field
    /// type is a programming error and stops with a precondition failure naming it.
    public static func string(_ keyPaths: PartialKeyPath<Entity>..., contains substring: String, caseSensitive: Bool = false) -> EntityPredicate {
        checkText(keyPaths, "string(_:contains:)")
        return text(keyPaths, .contains, substring, caseSensitive: caseSensitive)
    }

    /// Some of several `String` and `String?` fields starts with `prefix`.
    public static func string(_ keyPaths: PartialKeyPath<Entity>..., hasPrefix prefix: String, caseSensitive: Bool = false) -> EntityPredicate {
        checkText(keyPaths, "string(_:hasPrefix:)")
        return text(keyPaths, .hasPrefix, prefix, caseSensitive: caseSensitive)
    }

    /// Some of several `String` and `String?` fields ends with `suffix`.
    public static func string(_ keyPaths: PartialKeyPath<Entity>..., hasSuffix suffix: String, caseSensitive: Bool = false) -> EntityPredicate {
        checkText(keyPaths, "string(_:hasSuffix:)")
        return text(keyPaths, .hasSuffix, suffix, caseSensitive: caseSensitive)
    }

    // MARK: Full text and fuzzy

    /// Full-text match over one or more fields: every word of `query` appears as a word of
    /// the fields (case-insensitive). Unsorted results come in BM25 relevance order. A query
    /// without words (empty, or only punctuation) matches nothing.
    public static func string(_ keyPaths: KeyPath<Entity, String>..., matches query: String) -> EntityPredicate {
        text(keyPaths, .matches, query)
    }

    /// Full-text match over optional fields (nil fields contribute no words).
    public static func string(_ keyPaths: KeyPath<Entity, String?>..., matches query: String) -> EntityPredicate {
        text(keyPaths, .matches, query)
    }

    /// Full-text match over `String` and `String?` fields together, as a full-text index
    /// over both (`index fulltext(name, username)`) covers them. Any other field type is a
    /// programming error and stops with a precondition failure naming it.
    public static func string(_ keyPaths: PartialKeyPath<Entity>..., matches query: String) -> EntityPredicate {
        checkText(keyPaths, "string(_:matches:)")
        return text(keyPaths, .matches, query)
    }

    /// SwiftletModel's fuzzy match: some three-letter piece of a word of `query` appears in
    /// some field, case-insensitively. A query without a word of three letters matches nothing.
    public static func string(_ keyPaths: KeyPath<Entity, String>..., fuzzyMatches query: String) -> EntityPredicate {
        text(keyPaths, .fuzzy, query)
    }

    /// Fuzzy match over `String` and `String?` fields together.
    public static func string(_ keyPaths: PartialKeyPath<Entity>..., fuzzyMatches query: String) -> EntityPredicate {
        checkText(keyPaths, "string(_:fuzzyMatches:)")
        return text(keyPaths, .fuzzy, query)
    }

    private static func checkText(_ keyPaths: [PartialKeyPath<Entity>], _ name: String) {
        for keyPath in keyPaths {
            let valueType = type(of: keyPath).valueType
            precondition(valueType == String.self || valueType == String?.self, "\(name) needs String or String? fields; \(keyPath) is \(valueType)")
        }
    }

    // MARK: Regular expressions

    /// Some field has a match of `regex`.
    public static func string<Output>(_ keyPaths: KeyPath<Entity, String>..., matches regex: Regex<Output>) -> EntityPredicate {
        nonisolated(unsafe) let regex = regex
        return text(keyPaths, .regex, "\(regex)", matcher: { (try? regex.firstMatch(in: $0)) != nil })
    }

    /// No field has a match of `regex`.
    public static func string<Output>(_ keyPaths: KeyPath<Entity, String>..., notMatching regex: Regex<Output>) -> EntityPredicate {
        nonisolated(unsafe) let regex = regex
        return !text(keyPaths, .regex, "\(regex)", matcher: { (try? regex.firstMatch(in: $0)) != nil })
    }

    /// Some field has a match of `regex`.
    public static func string(_ keyPaths: KeyPath<Entity, String>..., matches regex: NSRegularExpression) -> EntityPredicate {
        text(keyPaths, .regex, regex.pattern, matcher: { regex.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil })
    }

    /// No field has a match of `regex`.
    public static func string(_ keyPaths: KeyPath<Entity, String>..., notMatching regex: NSRegularExpression) -> EntityPredicate {
        !string(keyPaths, matchesExpression: regex)
    }

    /// Some field matches the regular expression `pattern` somewhere, compiled with
    /// `options`. Throws ``InvalidQuery`` if the pattern does not compile.
    public static func string(_ keyPaths: KeyPath<Entity, String>..., matchesRegex pattern: String, caseSensitive: Bool = true,
                              options: NSRegularExpression.Options = []) throws -> EntityPredicate {
        string(keyPaths, matchesExpression: try compile(pattern, caseSensitive: caseSensitive, options: options))
    }

    /// No field matches the regular expression `pattern`. Throws ``InvalidQuery`` if the
    /// pattern does not compile.
    public static func string(_ keyPaths: KeyPath<Entity, String>..., notMatchingRegex pattern: String, caseSensitive: Bool = true,
                              options: NSRegularExpression.Options = []) throws -> EntityPredicate {
        !string(keyPaths, matchesExpression: try compile(pattern, caseSensitive: caseSensitive, options: options))
    }

    private static func string(_ keyPaths: [KeyPath<Entity, String>], matchesExpression regex: NSRegularExpression) -> EntityPredicate {
        text(keyPaths, .regex, regex.pattern, matcher: { regex.firstMatch(in: $0, range: NSRange($0.startIndex..., in: $0)) != nil })
    }

    private static func compile(_ pattern: String, caseSensitive: Bool, options: NSRegularExpression.Options) throws -> NSRegularExpression {
        do {
            return try NSRegularExpression(pattern: pattern, options: caseSensitive ? options : options.union(.caseInsensitive))
        } catch {
            throw InvalidQuery(message: "invalid regular expression '\(pattern)': \(error)")
        }
    }
}
