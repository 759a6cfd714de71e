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
    //
    // One overload per condition, generic over the fields' types: any mix of `String` and
    // `String?` fields compiles, and a field of another type is a compile error naming
    // ``TextSearchable``, never a failure when the query runs.

    /// Some field contains `substring`; nil contains nothing.
    public static func string<each Field: TextSearchable>(_ keyPaths: repeat KeyPath<Entity, each Field>, contains substring: String,
                                                          caseSensitive: Bool = false) -> EntityPredicate {
        text(list(repeat each keyPaths), .contains, substring, caseSensitive: caseSensitive)
    }

    /// No field contains `substring` (nil fields never do).
    public static func string<each Field: TextSearchable>(_ keyPaths: repeat KeyPath<Entity, each Field>, notContains substring: String,
                                                          caseSensitive: Bool = false) -> EntityPredicate {
        !text(list(repeat each keyPaths), .contains, substring, caseSensitive: caseSensitive)
    }

    /// Some field starts with `prefix`; nil starts with nothing.
    public static func string<each Field: TextSearchable>(_ keyPaths: repeat KeyPath<Entity, each Field>, hasPrefix prefix: String,
                                                          caseSensitive: Bool = false) -> EntityPredicate {
        text(list(repeat each keyPaths), .hasPrefix, prefix, caseSensitive: caseSensitive)
    }

    /// No field starts with `prefix` (SwiftletModel's spelling; `notHasPrefix:` is the same).
    public static func string<each Field: TextSearchable>(_ keyPaths: repeat KeyPath<Entity, each Field>, notHavingPrefix prefix: String,
                                                          caseSensitive: Bool = false) -> EntityPredicate {
        !text(list(repeat each keyPaths), .hasPrefix, prefix, caseSensitive: caseSensitive)
    }

    /// No field starts with `prefix`.
    public static func string<each Field: TextSearchable>(_ keyPaths: repeat KeyPath<Entity, each Field>, notHasPrefix prefix: String,
                                                          caseSensitive: Bool = false) -> EntityPredicate {
        !text(list(repeat each keyPaths), .hasPrefix, prefix, caseSensitive: caseSensitive)
    }

    /// Some field ends with `suffix`; nil ends with nothing.
    public static func string<each Field: TextSearchable>(_ keyPaths: repeat KeyPath<Entity, each Field>, hasSuffix suffix: String,
                                                          caseSensitive: Bool = false) -> EntityPredicate {
        text(list(repeat each keyPaths), .hasSuffix, suffix, caseSensitive: caseSensitive)
    }

    /// No field ends with `suffix` (SwiftletModel's spelling; `notHasSuffix:` is the same).
    public static func string<each Field: TextSearchable>(_ keyPaths: repeat KeyPath<Entity, each Field>, notHavingSuffix suffix: String,
                                                          caseSensitive: Bool = false) -> EntityPredicate {
        !text(list(repeat each keyPaths), .hasSuffix, suffix, caseSensitive: caseSensitive)
    }

    /// No field ends with `suffix`.
    public static func string<each Field: TextSearchable>(_ keyPaths: repeat KeyPath<Entity, each Field>, notHasSuffix suffix: String,
                                                          caseSensitive: Bool = false) -> EntityPredicate {
        !text(list(repeat each keyPaths), .hasSuffix, suffix, caseSensitive: caseSensitive)
    }

    /// The key paths of a text condition, in order.
    private static func list<each Field: TextSearchable>(_ keyPaths: repeat KeyPath<Entity, each Field>) -> [PartialKeyPath<Entity>] {
        var list: [PartialKeyPath<Entity>] = []
        for keyPath in repeat each keyPaths { list.append(keyPath) }
        return list
    }

    // MARK: Full text and fuzzy

    /// Full-text match over one or more fields: every word of `query` appears as a word of
    /// the fields (case-insensitive; nil fields contribute no words), as a full-text index
    /// over them (`index fulltext(name, username)`) covers them. Unsorted results come in
    /// BM25 relevance order. A query without words (empty, or only punctuation) matches nothing.
    public static func string<each Field: TextSearchable>(_ keyPaths: repeat KeyPath<Entity, each Field>, matches query: String) -> EntityPredicate {
        text(list(repeat each keyPaths), .matches, query)
    }

    /// SwiftletModel's fuzzy match: some three-letter piece of a word of `query` appears in
    /// some field, case-insensitively. A query without a word of three letters matches nothing.
    public static func string<each Field: TextSearchable>(_ keyPaths: repeat KeyPath<Entity, each Field>, fuzzyMatches query: String) -> EntityPredicate {
        text(list(repeat each keyPaths), .fuzzy, query)
    }

    // MARK: Regular expressions
    //
    // Over `String` and `String?` fields alike (a nil field has no match), one or several.

    /// Some field has a match of `regex`.
    public static func string<Output, each Field: TextSearchable>(_ keyPaths: repeat KeyPath<Entity, each Field>,
                                                                  matches regex: Regex<Output>) -> EntityPredicate {
        nonisolated(unsafe) let regex = regex
        return text(list(repeat each keyPaths), .regex, "\(regex)", matcher: { (try? regex.firstMatch(in: $0)) != nil })
    }

    /// No field has a match of `regex`.
    public static func string<Output, each Field: TextSearchable>(_ keyPaths: repeat KeyPath<Entity, each Field>,
                                                                  notMatching regex: Regex<Output>) -> EntityPredicate {
        !string(repeat each keyPaths, matches: regex)
    }

    /// Some field has a match of `regex`, searched with `options` (`.anchored`,
    /// `.withoutAnchoringBounds`, ...).
    public static func string<each Field: TextSearchable>(_ keyPaths: repeat KeyPath<Entity, each Field>, matches regex: NSRegularExpression,
                                                          options: NSRegularExpression.MatchingOptions = []) -> EntityPredicate {
        string(list(repeat each keyPaths), matchesExpression: regex, options: options)
    }

    /// No field has a match of `regex`, searched with `options`.
    public static func string<each Field: TextSearchable>(_ keyPaths: repeat KeyPath<Entity, each Field>, notMatching regex: NSRegularExpression,
                                                          options: NSRegularExpression.MatchingOptions = []) -> EntityPredicate {
        !string(list(repeat each keyPaths), matchesExpression: regex, options: options)
    }

    /// Some field matches the regular expression `pattern` somewhere, compiled with
    /// `options`. Throws ``InvalidQuery`` if the pattern does not compile.
    public static func string<each Field: TextSearchable>(_ keyPaths: repeat KeyPath<Entity, each Field>, matchesRegex pattern: String,
                                                          caseSensitive: Bool = true, options: NSRegularExpression.Options = []) throws -> EntityPredicate {
        string(list(repeat each keyPaths), matchesExpression: try compile(pattern, caseSensitive: caseSensitive, options: options), options: [])
    }

    /// No field matches the regular expression `pattern`. Throws ``InvalidQuery`` if the
    /// pattern does not compile.
    public static func string<each Field: TextSearchable>(_ keyPaths: repeat KeyPath<Entity, each Field>, notMatchingRegex pattern: String,
                                                          caseSensitive: Bool = true, options: NSRegularExpression.Options = []) throws -> EntityPredicate {
        !string(list(repeat each keyPaths), matchesExpression: try compile(pattern, caseSensitive: caseSensitive, options: options), options: [])
    }

    private static func string(_ keyPaths: [PartialKeyPath<Entity>], matchesExpression regex: NSRegularExpression,
                               options: NSRegularExpression.MatchingOptions) -> EntityPredicate {
        text(keyPaths, .regex, regex.pattern, matcher: { regex.firstMatch(in: $0, options: options, range: NSRange($0.startIndex..., in: $0)) != nil })
    }

    private static func compile(_ pattern: String, caseSensitive: Bool, options: NSRegularExpression.Options) throws -> NSRegularExpression {
        do {
            return try NSRegularExpression(pattern: pattern, options: caseSensitive ? options : options.union(.caseInsensitive))
        } catch {
            throw InvalidQuery(message: "invalid regular expression '\(pattern)': \(error)")
        }
    }
}
