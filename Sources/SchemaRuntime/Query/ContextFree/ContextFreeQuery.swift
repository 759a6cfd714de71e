/// A query for one entity made without a context: `User.query("u1")`, `user.query()`, or
/// `first()` of a ``ContextFreeQueryList``.
///
/// Run it with ``resolve(in:)``, observe it with a store, or give it a context with
/// ``in(_:)``. It has no `resolve()`: with no context to read, it could only answer nil, so
/// that spelling does not compile.
public struct ContextFreeQuery<Entity: EntityModelProtocol>: NestedQuery {
    /// The query, with no context.
    @_spi(SchemaStore) public private(set) var query: Query<Entity>

    init(_ query: Query<Entity>) {
        self.query = query
    }

    /// A query for `id`, to be resolved with ``resolve(in:)``.
    public init(id: Entity.ID) {
        self.init(Query(id: id))
    }

    /// The queried id; nil for a query whose entity is found when it resolves (`first()`).
    public var id: Entity.ID? { query.id }

    public var nesting: Nesting<Entity> {
        get { query.nesting }
        set { query.nesting = newValue }
    }

    /// The entity in `context`, shaped by the nested relations, or nil if not stored.
    public func resolve(in context: Context) -> Entity? { query.resolve(in: context) }

    /// Not available: a query made without a context has nothing to read.
    @available(*, unavailable, message: "a query made without a context resolves in one: use resolve(in: context), or make the query with `in: context`")
    public func resolve() -> Entity? { nil }

    /// The query with `context`.
    public func `in`(_ context: Context) -> Query<Entity> { query.bound(to: context) }

    /// The entities this one links to through a to-many relation, in link order.
    public func related<Target, Directionality>(_ keyPath: WritableKeyPath<Entity, ToMany<Target, Directionality>>) -> ContextFreeQueryList<Target> {
        ContextFreeQueryList(query.related(keyPath))
    }

    /// A query for the entity this one links to through a to-one relation.
    public func related<Target, Directionality, Constraint>(
        _ keyPath: WritableKeyPath<Entity, ToOne<Target, Directionality, Constraint>>
    ) -> ContextFreeQuery<Target> {
        ContextFreeQuery<Target>(query.related(keyPath))
    }

    /// The entity this query finds if it satisfies `predicate`, else nil.
    public func filter(_ predicate: Predicate<Entity>) -> ContextFreeQuery { ContextFreeQuery(query.filter(predicate)) }
}
