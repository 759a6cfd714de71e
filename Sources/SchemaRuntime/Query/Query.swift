/// A query for one entity by id, optionally shaped with nested relations.
///
/// ```swift
/// let user = User.query("1", in: context)
///     .with(\.$chats) { $0.with(\.$messages).id(\.$admins) }
///     .resolve()
/// ```
///
/// A query holds a copy of the context it was made with (O(1)); later changes to the
/// caller's context are not seen. Queries made without a context resolve with
/// ``resolve(in:)``.
public struct Query<Entity: EntityModelProtocol>: NestedQuery {
    /// The queried id; nil for the template queries passed to nested closures and for queries
    /// whose entity is found when they resolve (`first()`, `last()`, a to-one `related(_:)`).
    public let id: Entity.ID?
    private(set) var context: Context?
    /// Finds the key in the context the query resolves in, when `id` cannot be known before.
    private var derivedKey: ((Context) -> Int32?)?
    /// Whether the query's entity is found when it resolves (see ``ContextReader``).
    var derivedKeyIsSet: Bool { derivedKey != nil }
    /// For `first()` and `last()`: the list whose first or last entity this is, which a
    /// context reading on demand materializes (``ContextReader``).
    var listOrigin: (list: QueryList<Entity>, last: Bool)?
    /// For a derived query, what finding its key depends on (``QueryReach``).
    var originReach: ((Context) -> QueryReach)?
    public var nesting = Nesting<Entity>()

    /// A query for `id` in `context`.
    public init(context: Context, id: Entity.ID) {
        self.context = context
        self.id = id
    }

    /// A query for `id` with no context, for ``ContextFreeQuery``.
    init(id: Entity.ID) {
        self.context = nil
        self.id = id
    }

    /// The same query in `context`.
    func bound(to context: Context) -> Query {
        var copy = self
        copy.context = context
        return copy
    }

    /// The template a nested closure shapes.
    @usableFromInline
    init() {
        self.context = nil
        self.id = nil
    }

    /// A query whose key is found when it resolves (`first()`, a to-one `related(_:)`); `reach`
    /// is what finding it depends on.
    init(context: Context?, nesting: Nesting<Entity> = Nesting(), key: @escaping (Context) -> Int32?,
         reach: @escaping (Context) -> QueryReach) {
        self.context = context
        self.id = nil
        self.derivedKey = key
        self.originReach = reach
        self.nesting = nesting
    }

    /// The entity in the query's context, shaped by the nested relations, or nil if not stored.
    public func resolve() -> Entity? {
        resolve(in: context ?? Context())
    }

    /// The entity in `context`, shaped by the nested relations, or nil if not stored.
    public func resolve(in context: Context) -> Entity? {
        if let reader = context.reader {
            guard let (list, last) = listOrigin else { return resolve(in: reader.materialize(self, in: context)) }
            var origin = list
            origin.additionalReach = origin.additionalReach.merged(with: nesting.reach)
            let (run, materialized) = reader.materialize(origin, in: context)
            let keys = run.execute(in: materialized).keys
            guard let key = last ? keys.last : keys.first else { return nil }
            return materialized.resolve(Entity.self, key: key, nesting: nesting)
        }
        guard let key = key(in: context) else { return nil }
        return context.resolve(Entity.self, key: key, nesting: nesting)
    }

    /// The queried entity's key in `context`, if the context has seen it.
    func key(in context: Context) -> Int32? {
        if let derivedKey { return derivedKey(context) }
        guard let id else { return nil }
        return context.key(of: id, Entity.self)
    }

    /// The entities this one links to through a to-many relation, in link order. Resolved in
    /// the query's context, or for a query made without one, in the context given to
    /// `resolve(in:)`.
    public func related<Target, Directionality>(_ keyPath: WritableKeyPath<Entity, ToMany<Target, Directionality>>) -> QueryList<Target> {
        let column = Entity.relation(for: keyPath).slot.column
        let source = ObjectIdentifier(Entity.self)
        let parent = self
        var list = QueryList<Target>(context: context, source: .derived { context in
            guard let key = parent.key(in: context) else { return [] }
            return context.liveTargets(source, column, key, Target.self)
        })
        if let id = parent.namedID, let stored = (id as? any StorableValue)?.storedValue {
            list.relatedOrigin = RelatedOrigin(table: source, id: stored, slot: .toMany(column))
        }
        // Every linked key, stored or not: saving a linked entity that was not stored adds it.
        list.originReach = { context in
            var reach = parent.reach(in: context)
            if let key = parent.key(in: context), let links = context.storageIfPresent(source)?.toManyLinks(column, key) {
                reach.watch(links.keys, of: ObjectIdentifier(Target.self))
            }
            return reach
        }
        return list
    }

    /// A query for the entity this one links to through a to-one relation: it resolves to nil
    /// when unlinked. Resolved in the query's context, or for a query made without one, in
    /// the context given to `resolve(in:)`.
    public func related<Target, Directionality, Constraint>(_ keyPath: WritableKeyPath<Entity, ToOne<Target, Directionality, Constraint>>) -> Query<Target> {
        let column = Entity.relation(for: keyPath).slot.column
        let source = ObjectIdentifier(Entity.self)
        let parent = self
        return Query<Target>(context: context, key: { context in
            guard let key = parent.key(in: context) else { return nil }
            return context.liveTarget(source, column, key, Target.self)
        }, reach: { context in parent.reach(in: context) })
    }

    /// The entity this query finds if it satisfies `predicate`, else nil (SwiftletModel's
    /// `query.first().filter(...)`): `Message.query(in: context).sorted(by: \.timestamp.desc)
    /// .first().filter(\.isRead == false)` is the newest message when it is unread.
    public func filter(_ predicate: Predicate<Entity>) -> Query {
        let base = self
        return Query(context: context, nesting: nesting, key: { context in
            guard let key = base.key(in: context), let row = context.row(Entity.self, key) else { return nil }
            let savedAt = predicate.node.readsSaveTimes ? context.savedAt(Entity.self, key: key) : nil
            return predicate.evaluate(row, in: context, key: key, savedAt: savedAt) ? key : nil
        }, reach: { context in
            var reach = base.reach(in: context)
            for table in predicate.node.reachedTables { reach.watch(table) }
            return reach
        })
    }
}
