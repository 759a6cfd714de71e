import Foundation

/// A filter condition on an entity, built from key paths:
/// `\.age > 18 && \.status == .active`, `.string(\.text, contains: "hello")`.
///
/// A predicate keeps its structure (fields, operators, values) so the query planner can
/// answer it from indexes; evaluating it directly gives the same result, which is how
/// unindexed filters run and how index candidates are checked.
///
/// Spelled ``Predicate`` too, as in SwiftletModel. Foundation also declares a `Predicate`
/// (the `#Predicate` macro's type), so in a file importing both modules the short name is
/// ambiguous when written out as a type: write `EntityPredicate<User>` there. Calls that
/// only build predicates (`filter(\.age > 18)`, `.string(...)`) never name the type.
public struct EntityPredicate<Entity> {
    indirect enum Node {
        case comparison(Comparison)
        case text(TextCondition)
        case and([Node])
        case or([Node])
        case not(Node)
        /// `updated(since:)`, `updated(within:)`: saved within these times (seconds since the
        /// reference date, both ends included). Only the context knows save times, so
        /// evaluation is given the entity's.
        case updated(ClosedRange<Double>)
        /// A condition on related entities; only a context knows links.
        case related(RelationCondition)
        /// A condition written in Swift (``custom(_:)``): evaluated on each candidate, never
        /// answered by an index.
        case custom((Entity) -> Bool)
    }

    enum Operator: String { case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">=" }

    struct Comparison {
        let keyPath: AnyKeyPath
        let op: Operator
        let value: IndexValue
        let field: (Entity) -> IndexValue
        /// The value as the field's column stores it, when the field's type is stored in a
        /// column (for a store that compiles the comparison to SQL).
        var storedValue: StoredValue? = nil

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
        /// SwiftletModel's fuzzy match: some three-letter piece of a query word is in a field.
        case fuzzy
        /// A regular expression (`matcher`) finds a match in some field.
        case regex
    }

    struct TextCondition {
        let keyPaths: [AnyKeyPath]
        let operation: TextOperation
        let query: String
        let caseSensitive: Bool
        let texts: (Entity) -> [String]
        /// For `.regex`: whether one field's text matches.
        let matcher: ((String) -> Bool)?

        /// The fields joined as a full-text index joins them.
        func joinedText(_ entity: Entity) -> String { texts(entity).joined(separator: " ") }

        func evaluate(_ entity: Entity) -> Bool {
            Self.holds(operation, query: query, caseSensitive: caseSensitive, texts: texts(entity), matcher: matcher)
        }

        /// Whether the condition holds for these field texts (nil fields left out): the one
        /// definition of text conditions, also run by a store's SQL (``PredicateStructure``).
        static func holds(_ operation: TextOperation, query: String, caseSensitive: Bool, texts: [String],
                          matcher: ((String) -> Bool)?) -> Bool {
            switch operation {
            case .matches:
                // A query without words (empty, or only punctuation) matches nothing.
                let words = TextTokenizer.tokens(query)
                guard !words.isEmpty else { return false }
                let tokens = Set(TextTokenizer.tokens(texts.joined(separator: " ")))
                return words.allSatisfy(tokens.contains)
            case .regex:
                return texts.contains(where: matcher!)
            case .fuzzy:
                let pieces = TextTokenizer.trigrams(query)
                guard !pieces.isEmpty else { return false }
                return texts.contains { text in
                    let folded = TextTokenizer.folded(text)
                    return pieces.contains { folded.contains($0) }
                }
            case .contains, .hasPrefix, .hasSuffix:
                // Case folding is the tokenizer's, scalar by scalar, so that a full-text index
                // can narrow these conditions without losing a match (see QueryPlanner).
                let needle = caseSensitive ? query : TextTokenizer.folded(query)
                return texts.contains { text in
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
        case .updated(let times): scope?.savedAt.map { times.contains($0) } ?? false
        case .related(let condition): scope.map { condition.evaluate($0.context, $0.key) } ?? false
        case .custom(let isIncluded): isIncluded(entity)
        }
    }

    // MARK: Combining

    public func and(_ other: EntityPredicate) -> EntityPredicate { self && other }
    public func or(_ other: EntityPredicate) -> EntityPredicate { self || other }

    public static func && (lhs: EntityPredicate, rhs: EntityPredicate) -> EntityPredicate {
        switch (lhs.node, rhs.node) {
        case let (.and(a), .and(b)): EntityPredicate(.and(a + b))
        case let (.and(a), b): EntityPredicate(.and(a + [b]))
        case let (a, .and(b)): EntityPredicate(.and([a] + b))
        case let (a, b): EntityPredicate(.and([a, b]))
        }
    }

    public static func || (lhs: EntityPredicate, rhs: EntityPredicate) -> EntityPredicate {
        switch (lhs.node, rhs.node) {
        case let (.or(a), .or(b)): EntityPredicate(.or(a + b))
        case let (.or(a), b): EntityPredicate(.or(a + [b]))
        case let (a, .or(b)): EntityPredicate(.or([a] + b))
        case let (a, b): EntityPredicate(.or([a, b]))
        }
    }

    public static prefix func ! (predicate: EntityPredicate) -> EntityPredicate { EntityPredicate(.not(predicate.node)) }

    /// Saved within `dates` (both ends included), as a condition that combines with others
    /// (SwiftletModel's metadata filter: `filter(.updated(within: start...end) || \.pinned == true)`).
    /// For entities whose schema declares `metadata updatedAt`; others never match. Alone or
    /// in a conjunction, the updatedAt index answers it.
    public static func updated(within dates: ClosedRange<Date>) -> EntityPredicate {
        EntityPredicate(.updated(dates.lowerBound.timeIntervalSinceReferenceDate...dates.upperBound.timeIntervalSinceReferenceDate))
    }

    /// Saved at `date` or later; see ``updated(within:)``.
    public static func updated(since date: Date) -> EntityPredicate {
        EntityPredicate(.updated(date.timeIntervalSinceReferenceDate...Double.infinity))
    }

    /// A condition the predicate language cannot say, written in Swift (seed 000's custom
    /// expressions): `.custom { $0.title.count > $0.minutes }`. It combines with the others
    /// (`\.minutes < 30 && .custom { ... }`); the other conditions may still be answered by
    /// indexes, and the closure runs on the entities they leave, O(1) calls per candidate.
    /// It is never index-assisted itself. The closure sees the entity's fields only (its
    /// relations are `.none`), so live queries rerun it when the entity's table changes.
    public static func custom(_ isIncluded: @escaping (Entity) -> Bool) -> EntityPredicate {
        EntityPredicate(.custom(isIncluded))
    }

    // MARK: Building

    static func compare<Value: IndexKeyConvertible>(_ keyPath: KeyPath<Entity, Value>, _ op: Operator, _ value: Value) -> EntityPredicate {
        EntityPredicate(.comparison(Comparison(keyPath: keyPath, op: op, value: value.indexValue, field: { $0[keyPath: keyPath].indexValue },
                                               storedValue: (value as? any StorableValue)?.storedValue)))
    }
}

/// SwiftletModel's name for ``EntityPredicate``; see there for when to use the long name.
public typealias Predicate<Entity> = EntityPredicate<Entity>

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

extension EntityPredicate.Node {
    /// Whether evaluating needs the entity's save time (an `updated(since:)` condition).
    var readsSaveTimes: Bool {
        switch self {
        case .updated: true
        case .comparison, .text, .related, .custom: false
        case .and(let nodes), .or(let nodes): nodes.contains { $0.readsSaveTimes }
        case .not(let inner): inner.readsSaveTimes
        }
    }

    /// Tables other than the entity's whose changes may change the answer (relation conditions).
    var reachedTables: [ObjectIdentifier] {
        switch self {
        case .related(let condition): condition.reachedTables
        case .comparison, .text, .updated, .custom: []
        case .and(let nodes), .or(let nodes): nodes.flatMap(\.reachedTables)
        case .not(let inner): inner.reachedTables
        }
    }
}
