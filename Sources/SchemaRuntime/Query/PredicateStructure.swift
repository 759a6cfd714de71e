/// A predicate's structure as a store compiles it to SQL: fields, operators and values, with
/// the conditions only Swift can evaluate left opaque.
@_spi(SchemaStore)
public indirect enum PredicateStructure {
    public enum Operator: String, Sendable { case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">=" }
    public enum TextOperation: Sendable { case contains, hasPrefix, hasSuffix, matches, fuzzy, regex }

    /// `field op value`; `stored` is the value as the field's column stores it, when known.
    case comparison(keyPath: AnyKeyPath, op: Operator, value: IndexValue, stored: StoredValue?)
    /// A text condition over one or more fields (any field matching).
    case text(keyPaths: [AnyKeyPath], operation: TextOperation, query: String, caseSensitive: Bool)
    case and([PredicateStructure])
    case or([PredicateStructure])
    case not(PredicateStructure)
    /// Saved within these times (seconds since the reference date, both ends included).
    case updated(ClosedRange<Double>)
    /// A relation condition or a Swift closure: evaluated in Swift only.
    case opaque
}

@_spi(SchemaStore)
extension EntityPredicate {
    /// The predicate's structure, for compiling it to SQL.
    public var structure: PredicateStructure { node.structure }
}

extension EntityPredicate.Node {
    var structure: PredicateStructure {
        switch self {
        case .comparison(let comparison):
            return .comparison(keyPath: comparison.keyPath, op: PredicateStructure.Operator(rawValue: comparison.op.rawValue)!,
                               value: comparison.value, stored: comparison.storedValue)
        case .text(let condition):
            let operation: PredicateStructure.TextOperation = switch condition.operation {
            case .contains: .contains
            case .hasPrefix: .hasPrefix
            case .hasSuffix: .hasSuffix
            case .matches: .matches
            case .fuzzy: .fuzzy
            case .regex: .regex
            }
            return .text(keyPaths: condition.keyPaths, operation: operation,
                         query: condition.query, caseSensitive: condition.caseSensitive)
        case .and(let nodes): return .and(nodes.map(\.structure))
        case .or(let nodes): return .or(nodes.map(\.structure))
        case .not(let inner): return .not(inner.structure)
        case .updated(let times): return .updated(times)
        case .related, .custom: return .opaque
        }
    }
}

@_spi(SchemaStore)
extension PredicateStructure {
    /// Whether a text condition holds for these field texts (nil fields left out), exactly as
    /// a query evaluates it; nil for a regular expression, which only its predicate holds.
    public static func textHolds(_ operation: TextOperation, query: String, caseSensitive: Bool, texts: [String]) -> Bool? {
        let evaluated: EntityPredicate<Void>.TextOperation
        switch operation {
        case .contains: evaluated = .contains
        case .hasPrefix: evaluated = .hasPrefix
        case .hasSuffix: evaluated = .hasSuffix
        case .matches: evaluated = .matches
        case .fuzzy: evaluated = .fuzzy
        case .regex: return nil
        }
        return EntityPredicate<Void>.TextCondition.holds(evaluated, query: query, caseSensitive: caseSensitive, texts: texts, matcher: nil)
    }
}
