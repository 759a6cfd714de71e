import Foundation

/// A filter condition on an entity, built from key paths:
/// `\.age > 18 && \.status == .active`, `.string(\.text, contains: "hello")`.
///
/// A predicate keeps its structure (fields, operators, values) so the query planner can
/// answer it from indexes; evaluating it directly gives the same result, which is how
/// unindexed filters run and how index candidates are checked.
public struct Predicate<Entity> {
    indirect enum Node {
        case comparison(Comparison)
        case text(TextCondition)
        case and([Node])
        case or([Node])
        case not(Node)
        /// `updated(since:)`: saved at or after this time (seconds since the reference date).
        /// Only the context knows save times, so evaluation is given the entity's.
        case updatedSince(Double)
        /// A condition on related entities; only a context knows links.
        case related(RelationCondition)
    }

    enum Operator: String { case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">=" }

    struct Comparison {
        let keyPath: AnyKeyPath
        let op: Operator
        let value: IndexValue
        let field: (Entity) -> IndexValue

        func evaluate(_ entity: Entity) -> Bool {
            let actual = field(entity)
            switch op {
            case .equal: return actual == value
            case .notEqual: return actual != value
            case .less: return actual < value
            case .lessOrEqual: return actual <= value
            case .greater: return actual > value
            case .greaterOrEqual: return actual >= value
            }
        }
    }

    enum TextOperation: Equatable {
        case contains, hasPrefix, hasSuffix
        /// Full-text: every query token is a token of the fields; ranked by BM25.
        case matches
        case regex
    }

    struct TextCondition {
        let keyPaths: [AnyKeyPath]
        let operation: TextOperation
        let query: String
        let caseSensitive: Bool
        let texts: (Entity) -> [String]
        let regex: NSRegularExpression?

        /// The fields joined as a full-text index joins them.
        func joinedText(_ entity: Entity) -> String { texts(entity).joined(separator: " ") }

        func evaluate(_ entity: Entity) -> Bool {
            switch operation {
            case .matches:
                // A query without words (empty, or only punctuation) matches nothing.
                let words = TextTokenizer.tokens(query)
                guard !words.isEmpty else { return false }
                let tokens = Set(TextTokenizer.tokens(joinedText(entity)))
                return words.allSatisfy(tokens.contains)
            case .regex:
                return texts(entity).contains { text in
                    regex!.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
                }
            case .contains, .hasPrefix, .hasSuffix:
                // Case folding is the tokenizer's, scalar by scalar, so that a full-text index
                // can narrow these conditions without losing a match (see QueryPlanner).
                let needle = caseSensitive ? query : TextTokenizer.folded(query)
                return texts(entity).contains { text in
                    let haystack = caseSensitive ? text : TextTokenizer.folded(text)
                    switch operation {
                    case .contains: return needle.isEmpty || haystack.contains(needle)
                    case .hasPrefix: return haystack.hasPrefix(needle)
                    default: return haystack.hasSuffix(needle)
                    }
                }
            }
        }
    }

    let node: Node

    init(_ node: Node) { self.node = node }

    /// Whether `entity` satisfies the predicate. Conditions only a context can answer
    /// (`updated(since:)`, conditions on related entities) are not satisfied.
    public func evaluate(_ entity: Entity) -> Bool { Self.evaluate(node, entity, scope: nil) }

    /// Whether `entity`, stored at `key` in `context` and last saved at `savedAt` (nil if
    /// unknown or not asked for: see ``Node/readsSaveTimes``), satisfies the predicate.
    func evaluate(_ entity: Entity, in context: Context, key: Int32, savedAt: Double?) -> Bool {
        Self.evaluate(node, entity, scope: Scope(context: context, key: key, savedAt: savedAt))
    }

    /// Where an entity is stored, for the conditions that read more than its fields.
    struct Scope {
        let context: Context
        let key: Int32
        let savedAt: Double?
    }

    static func evaluate(_ node: Node, _ entity: Entity, scope: Scope?) -> Bool {
        switch node {
        case .comparison(let comparison): comparison.evaluate(entity)
        case .text(let condition): condition.evaluate(entity)
        case .and(let nodes): nodes.allSatisfy { evaluate($0, entity, scope: scope) }
        case .or(let nodes): nodes.contains { evaluate($0, entity, scope: scope) }
        case .not(let inner): !evaluate(inner, entity, scope: scope)
        case .updatedSince(let since): scope?.savedAt.map { $0 >= since } ?? false
        case .related(let condition): scope.map { condition.evaluate($0.context, $0.key) } ?? false
        }
    }

    // MARK: Combining

    public func and(_ other: Predicate) -> Predicate { self && other }
    public func or(_ other: Predicate) -> Predicate { self || other }

    public static func && (lhs: Predicate, rhs: Predicate) -> Predicate {
        switch (lhs.node, rhs.node) {
        case let (.and(a), .and(b)): Predicate(.and(a + b))
        case let (.and(a), b): Predicate(.and(a + [b]))
        case let (a, .and(b)): Predicate(.and([a] + b))
        case let (a, b): Predicate(.and([a, b]))
        }
    }

    public static func || (lhs: Predicate, rhs: Predicate) -> Predicate {
        switch (lhs.node, rhs.node) {
        case let (.or(a), .or(b)): Predicate(.or(a + b))
        case let (.or(a), b): Predicate(.or(a + [b]))
        case let (a, .or(b)): Predicate(.or([a] + b))
        case let (a, b): Predicate(.or([a, b]))
        }
    }

    public static prefix func ! (predicate: Predicate) -> Predicate { Predicate(.not(predicate.node)) }

    // MARK: Building

    static func compare<Value: IndexKeyConvertible>(_ keyPath: KeyPath<Entity, Value>, _ op: Operator, _ value: Value) -> Predicate {
        Predicate(.comparison(Comparison(keyPath: keyPath, op: op, value: value.indexValue, field: { $0[keyPath: keyPath].indexValue })))
    }

    private static func text(_ keyPaths: [KeyPath<Entity, String>], _ operation: TextOperation, _ query: String, caseSensitive: Bool, regex: NSRegularExpression? = nil) -> Predicate {
        Predicate(.text(TextCondition(keyPaths: keyPaths, operation: operation, query: query, caseSensitive: caseSensitive,
                                      texts: { entity in keyPaths.map { entity[keyPath: $0] } }, regex: regex)))
    }

    /// Optional fields: a nil field has no text, so it contains, starts and ends with nothing
    /// and matches no query (and the negated forms hold for it).
    private static func text(_ keyPaths: [KeyPath<Entity, String?>], _ operation: TextOperation, _ query: String, caseSensitive: Bool) -> Predicate {
        Predicate(.text(TextCondition(keyPaths: keyPaths, operation: operation, query: query, caseSensitive: caseSensitive,
                                      texts: { entity in keyPaths.compactMap { entity[keyPath: $0] } }, regex: nil)))
    }

    /// The optional field contains `substring`; nil contains nothing.
    public static func string(_ keyPath: KeyPath<Entity, String?>, contains substring: String, caseSensitive: Bool = false) -> Predicate {
        text([keyPath], .contains, substring, caseSensitive: caseSensitive)
    }

    /// The optional field is nil or does not contain `substring`.
    public static func string(_ keyPath: KeyPath<Entity, String?>, notContains substring: String, caseSensitive: Bool = false) -> Predicate {
        !string(keyPath, contains: substring, caseSensitive: caseSensitive)
    }

    /// The optional field starts with `prefix`; nil starts with nothing.
    public static func string(_ keyPath: KeyPath<Entity, String?>, hasPrefix prefix: String, caseSensitive: Bool = false) -> Predicate {
        text([keyPath], .hasPrefix, prefix, caseSensitive: caseSensitive)
    }

    /// The optional field ends with `suffix`; nil ends with nothing.
    public static func string(_ keyPath: KeyPath<Entity, String?>, hasSuffix suffix: String, caseSensitive: Bool = false) -> Predicate {
        text([keyPath], .hasSuffix, suffix, caseSensitive: caseSensitive)
    }

    /// Full-text match over one or more optional fields (nil fields contribute no words):
    /// every word of `query` appears in them. A query without words matches nothing.
    public static func string(_ keyPaths: KeyPath<Entity, String?>..., matches query: String) -> Predicate {
        text(keyPaths, .matches, query, caseSensitive: false)
    }

    /// Full-text match over `String` and `String?` fields together, as a full-text index
    /// over both (`index fulltext(name, username)`) covers them. Any other field type is a
    /// programming error and stops with a precondition failure naming it.
    public static func string(_ keyPaths: PartialKeyPath<Entity>..., matches query: String) -> Predicate {
        for keyPath in keyPaths {
            let valueType = type(of: keyPath).valueType
            precondition(valueType == String.self || valueType == String?.self,
                         "string(_:matches:) needs String or String? fields; \(keyPath) is \(valueType)")
        }
        return Predicate(.text(TextCondition(keyPaths: keyPaths, operation: .matches, query: query, caseSensitive: false,
                                             texts: { entity in keyPaths.compactMap { entity[keyPath: $0] as? String } }, regex: nil)))
    }

    /// The field contains `substring` (case-insensitive unless `caseSensitive`).
    public static func string(_ keyPath: KeyPath<Entity, String>, contains substring: String, caseSensitive: Bool = false) -> Predicate {
        text([keyPath], .contains, substring, caseSensitive: caseSensitive)
    }

    /// The field does not contain `substring`.
    public static func string(_ keyPath: KeyPath<Entity, String>, notContains substring: String, caseSensitive: Bool = false) -> Predicate {
        !string(keyPath, contains: substring, caseSensitive: caseSensitive)
    }

    /// The field starts with `prefix`.
    public static func string(_ keyPath: KeyPath<Entity, String>, hasPrefix prefix: String, caseSensitive: Bool = false) -> Predicate {
        text([keyPath], .hasPrefix, prefix, caseSensitive: caseSensitive)
    }

    /// The field does not start with `prefix`.
    public static func string(_ keyPath: KeyPath<Entity, String>, notHasPrefix prefix: String, caseSensitive: Bool = false) -> Predicate {
        !string(keyPath, hasPrefix: prefix, caseSensitive: caseSensitive)
    }

    /// The field ends with `suffix`.
    public static func string(_ keyPath: KeyPath<Entity, String>, hasSuffix suffix: String, caseSensitive: Bool = false) -> Predicate {
        text([keyPath], .hasSuffix, suffix, caseSensitive: caseSensitive)
    }

    /// The field does not end with `suffix`.
    public static func string(_ keyPath: KeyPath<Entity, String>, notHasSuffix suffix: String, caseSensitive: Bool = false) -> Predicate {
        !string(keyPath, hasSuffix: suffix, caseSensitive: caseSensitive)
    }

    /// Full-text match over one or more fields: every word of `query` appears as a word of
    /// the fields (case-insensitive). Unsorted results come in BM25 relevance order. A query
    /// without words (empty, or only punctuation) matches nothing.
    public static func string(_ keyPaths: KeyPath<Entity, String>..., matches query: String) -> Predicate {
        text(keyPaths, .matches, query, caseSensitive: false)
    }

    /// The field matches the regular expression `pattern` somewhere.
    /// Throws ``InvalidQuery`` if the pattern does not compile.
    public static func string(_ keyPath: KeyPath<Entity, String>, matchesRegex pattern: String, caseSensitive: Bool = true) throws -> Predicate {
        do {
            let regex = try NSRegularExpression(pattern: pattern, options: caseSensitive ? [] : [.caseInsensitive])
            return text([keyPath], .regex, pattern, caseSensitive: caseSensitive, regex: regex)
        } catch {
            throw InvalidQuery(message: "invalid regular expression '\(pattern)': \(error)")
        }
    }
}

// MARK: - Operators on key paths

public func == <Entity, Value: IndexKeyConvertible & Equatable>(lhs: KeyPath<Entity, Value>, rhs: Value) -> Predicate<Entity> {
    .compare(lhs, .equal, rhs)
}

public func != <Entity, Value: IndexKeyConvertible & Equatable>(lhs: KeyPath<Entity, Value>, rhs: Value) -> Predicate<Entity> {
    .compare(lhs, .notEqual, rhs)
}

public func < <Entity, Value: IndexKeyConvertible & Comparable>(lhs: KeyPath<Entity, Value>, rhs: Value) -> Predicate<Entity> {
    .compare(lhs, .less, rhs)
}

public func <= <Entity, Value: IndexKeyConvertible & Comparable>(lhs: KeyPath<Entity, Value>, rhs: Value) -> Predicate<Entity> {
    .compare(lhs, .lessOrEqual, rhs)
}

public func > <Entity, Value: IndexKeyConvertible & Comparable>(lhs: KeyPath<Entity, Value>, rhs: Value) -> Predicate<Entity> {
    .compare(lhs, .greater, rhs)
}

public func >= <Entity, Value: IndexKeyConvertible & Comparable>(lhs: KeyPath<Entity, Value>, rhs: Value) -> Predicate<Entity> {
    .compare(lhs, .greaterOrEqual, rhs)
}

// Optional fields compare with nil ordered before every value, as in sorts.

public func < <Entity, Value: IndexKeyConvertible & Comparable>(lhs: KeyPath<Entity, Value?>, rhs: Value?) -> Predicate<Entity> {
    .compare(lhs, .less, rhs)
}

public func <= <Entity, Value: IndexKeyConvertible & Comparable>(lhs: KeyPath<Entity, Value?>, rhs: Value?) -> Predicate<Entity> {
    .compare(lhs, .lessOrEqual, rhs)
}

public func > <Entity, Value: IndexKeyConvertible & Comparable>(lhs: KeyPath<Entity, Value?>, rhs: Value?) -> Predicate<Entity> {
    .compare(lhs, .greater, rhs)
}

public func >= <Entity, Value: IndexKeyConvertible & Comparable>(lhs: KeyPath<Entity, Value?>, rhs: Value?) -> Predicate<Entity> {
    .compare(lhs, .greaterOrEqual, rhs)
}

extension Predicate.Node {
    /// Whether evaluating needs the entity's save time (an `updated(since:)` condition).
    var readsSaveTimes: Bool {
        switch self {
        case .updatedSince: true
        case .comparison, .text, .related: false
        case .and(let nodes), .or(let nodes): nodes.contains { $0.readsSaveTimes }
        case .not(let inner): inner.readsSaveTimes
        }
    }

    /// Tables other than the entity's whose changes may change the answer (relation conditions).
    var reachedTables: [ObjectIdentifier] {
        switch self {
        case .related(let condition): condition.reachedTables
        case .comparison, .text, .updatedSince: []
        case .and(let nodes), .or(let nodes): nodes.flatMap(\.reachedTables)
        case .not(let inner): inner.reachedTables
        }
    }
}
