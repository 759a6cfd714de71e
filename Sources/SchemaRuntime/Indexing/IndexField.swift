/// One indexed field, as generated: `.field(\.age)`, `.field(\.name, descending: true)`.
public struct IndexField<Entity>: Sendable {
    /// The field's key path, for matching filters and sorts to indexes.
    let keyPath: AnyKeyPath & Sendable
    /// The same path through `.desc`, for matching descending sorts.
    let descendingKeyPath: ImmutableKeyPath
    let descending: Bool
    @usableFromInline let value: @Sendable (Entity) -> IndexValue

    public static func field<Value: IndexKeyConvertible & Sendable>(_ keyPath: KeyPath<Entity, Value> & Sendable, descending: Bool = false) -> IndexField {
        IndexField(keyPath: keyPath, descendingKeyPath: ImmutableKeyPath(keyPath.appending(path: \Value.desc)), descending: descending,
                   value: { $0[keyPath: keyPath].indexValue })
    }
}

/// A key path held across concurrency domains. Key paths are immutable values; only the
/// ones built at run time (with `appending`) lack the Sendable inference literals get.
struct ImmutableKeyPath: @unchecked Sendable, Hashable {
    let keyPath: AnyKeyPath
    init(_ keyPath: AnyKeyPath) { self.keyPath = keyPath }
}

/// One field of a full-text index, as generated: `.text(\.title)`.
public struct TextField<Entity>: Sendable {
    let keyPath: AnyKeyPath & Sendable
    @usableFromInline let text: @Sendable (Entity) -> String

    public static func text(_ keyPath: KeyPath<Entity, String> & Sendable) -> TextField {
        TextField(keyPath: keyPath, text: { $0[keyPath: keyPath] })
    }

    public static func text(_ keyPath: KeyPath<Entity, String?> & Sendable) -> TextField {
        TextField(keyPath: keyPath, text: { $0[keyPath: keyPath] ?? "" })
    }
}
