/// How a saved entity is combined with the one already stored under the same id.
///
/// `merge(old, new)` returns what gets stored. Strategies compose left to right:
/// `MergeStrategy(.patch(\.name), .append(\.tags))` patches `name` then appends `tags`.
public struct MergeStrategy<Entity>: Sendable {
    /// Combines the stored entity (`old`) with the one being saved (`new`).
    public let merge: @Sendable (_ old: Entity, _ new: Entity) -> Entity

    /// Whether the strategy always returns `new` unchanged; lets the runtime skip reading `old`.
    @usableFromInline let isReplace: Bool

    /// A strategy from a merge function.
    public init(_ merge: @escaping @Sendable (_ old: Entity, _ new: Entity) -> Entity) {
        self.merge = merge
        self.isReplace = false
    }

    private init(replace: Void) {
        self.merge = { _, new in new }
        self.isReplace = true
    }

    /// Applies `strategies` in order, each to the result of the previous one.
    public init(_ strategies: MergeStrategy<Entity>...) {
        self.init(strategies)
    }

    /// Applies `strategies` in order, each to the result of the previous one.
    public init(_ strategies: [MergeStrategy<Entity>]) {
        let effective = strategies.filter { !$0.isReplace }
        if effective.isEmpty {
            self.init(replace: ())
        } else {
            self.init { old, new in effective.reduce(new) { merged, strategy in strategy.merge(old, merged) } }
        }
    }

    /// Stores the new entity as it is.
    public static var replace: MergeStrategy<Entity> { MergeStrategy(replace: ()) }

    /// What gets stored when `new` is saved over `old` (SwiftletModel's spelling of ``merge``).
    public func merge(_ old: Entity, new: Entity) -> Entity { merge(old, new) }

    /// SwiftletModel's `lastWriteWins(_:comparedBy:)`: `strategies` merge the older entity
    /// (by `keyPath`) into the newer one. When `new` is newer they run as usual; otherwise they
    /// run with the two swapped, so `.append(\.tags)` appends the stored (newer) tags onto the
    /// new ones, and a tie counts the stored entity as the newer. Without strategies, the
    /// newer entity is kept whole. (The schema's `lastWriteWins(field)` is the plain rule:
    /// the greater value wins, ties go to the new entity.)
    public static func lastWriteWins<Value: Comparable & Sendable>(_ strategies: MergeStrategy<Entity>...,
                                                                   comparedBy keyPath: KeyPath<Entity, Value> & Sendable) -> MergeStrategy<Entity> {
        let combined = MergeStrategy(strategies)
        return MergeStrategy { old, new in
            new[keyPath: keyPath] > old[keyPath: keyPath] ? combined.merge(old, new) : combined.merge(new, old)
        }
    }

    /// ``lastWriteWins(_:comparedBy:)-(MergeStrategy<Entity>...,_)`` for a `Comparable`
    /// entity, compared as a whole (SwiftletModel's form without `comparedBy:`).
    public static func lastWriteWins(_ strategies: MergeStrategy<Entity>...) -> MergeStrategy<Entity> where Entity: Comparable & SendableMetatype {
        let combined = MergeStrategy(strategies)
        return MergeStrategy { old, new in new > old ? combined.merge(old, new) : combined.merge(new, old) }
    }

    /// ``lastWriteWins(_:comparedBy:)-(MergeStrategy<Entity>...,_)`` over an optional field: nil is older than any value.
    public static func lastWriteWins<Value: Comparable & Sendable>(_ strategies: MergeStrategy<Entity>...,
                                                                   comparedBy keyPath: KeyPath<Entity, Value?> & Sendable) -> MergeStrategy<Entity> {
        let combined = MergeStrategy(strategies)
        return MergeStrategy { old, new in
            switch (old[keyPath: keyPath], new[keyPath: keyPath]) {
            case (let o?, let n?) where n > o: combined.merge(old, new)
            case (nil, _?): combined.merge(old, new)
            default: combined.merge(new, old)
            }
        }
    }

    /// Keeps the stored value of an optional field when the new value is `nil`.
    public static func patch<Value>(_ keyPath: WritableKeyPath<Entity, Value?> & Sendable) -> MergeStrategy<Entity> {
        MergeStrategy { old, new in
            guard new[keyPath: keyPath] == nil else { return new }
            var merged = new
            merged[keyPath: keyPath] = old[keyPath: keyPath]
            return merged
        }
    }

    /// Appends the new elements of an array field to the stored ones.
    public static func append<Element>(_ keyPath: WritableKeyPath<Entity, [Element]> & Sendable) -> MergeStrategy<Entity> {
        MergeStrategy { old, new in
            var merged = new
            merged[keyPath: keyPath] = old[keyPath: keyPath] + new[keyPath: keyPath]
            return merged
        }
    }

    /// Appends the new elements of an optional array field to the stored ones.
    public static func append<Element>(_ keyPath: WritableKeyPath<Entity, [Element]?> & Sendable) -> MergeStrategy<Entity> {
        MergeStrategy { old, new in
            guard let stored = old[keyPath: keyPath] else { return new }
            var merged = new
            merged[keyPath: keyPath] = stored + (new[keyPath: keyPath] ?? [])
            return merged
        }
    }

    /// Keeps whichever entity has the greater value of `keyPath` (ties go to the new one).
    public static func lastWriteWins<Value: Comparable & Sendable>(_ keyPath: KeyPath<Entity, Value> & Sendable) -> MergeStrategy<Entity> {
        MergeStrategy { old, new in old[keyPath: keyPath] > new[keyPath: keyPath] ? old : new }
    }

    /// Keeps whichever entity has the greater non-nil value of `keyPath` (nil loses; ties go to the new one).
    public static func lastWriteWins<Value: Comparable & Sendable>(_ keyPath: KeyPath<Entity, Value?> & Sendable) -> MergeStrategy<Entity> {
        MergeStrategy { old, new in
            switch (old[keyPath: keyPath], new[keyPath: keyPath]) {
            case (let o?, let n?): o > n ? old : new
            case (_?, nil): old
            default: new
            }
        }
    }
}

extension MergeStrategy where Entity: EntityModelProtocol {
    /// The entity's default strategy, as declared in its schema.
    public static var `default`: MergeStrategy<Entity> { Entity.defaultMergeStrategy }

    /// The entity's fragment strategy, for partial data, as declared in its schema.
    public static var fragment: MergeStrategy<Entity> { Entity.fragmentMergeStrategy }
}

extension MergeStrategy {
    /// A value-level patch, for optional values: the new value, or the stored one when the new
    /// one is nil (SwiftletModel's `MergeStrategy<T?>.patch()`).
    public static func patch<Wrapped>() -> MergeStrategy<Wrapped?> where Entity == Wrapped? {
        MergeStrategy<Wrapped?> { old, new in new ?? old }
    }
}
