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
    /// The queried id; nil only for the template queries passed to nested closures.
    public let id: Entity.ID?
    let context: Context?
    public var nesting = Nesting<Entity>()

    /// A query for `id` in `context`.
    public init(context: Context, id: Entity.ID) {
        self.context = context
        self.id = id
    }

    /// A query for `id`, to be resolved with ``resolve(in:)``.
    public init(id: Entity.ID) {
        self.context = nil
        self.id = id
    }

    /// The template a nested closure shapes.
    init() {
        self.context = nil
        self.id = nil
    }

    /// The entity in the query's context, shaped by the nested relations, or nil if not stored.
    public func resolve() -> Entity? {
        resolve(in: context ?? Context())
    }

    /// The entity in `context`, shaped by the nested relations, or nil if not stored.
    public func resolve(in context: Context) -> Entity? {
        guard let id, let key = context.key(of: id, Entity.self) else { return nil }
        return context.resolve(Entity.self, key: key, nesting: nesting)
    }

    /// The entities this one links to through a to-many relation, in link order.
    public func related<Target, Directionality>(_ keyPath: WritableKeyPath<Entity, ToMany<Target, Directionality>>) -> QueryList<Target> {
        let context = context ?? Context()
        guard let id, let key = context.key(of: id, Entity.self) else { return QueryList(context: context, keys: []) }
        let column = Entity.relation(for: keyPath).slot.column
        return QueryList(context: context, keys: context.liveTargets(ObjectIdentifier(Entity.self), column, key, Target.self))
    }

    /// The entity this one links to through a to-one relation, or nil if unlinked.
    public func related<Target, Directionality, Constraint>(_ keyPath: WritableKeyPath<Entity, ToOne<Target, Directionality, Constraint>>) -> Query<Target>? {
        let context = context ?? Context()
        guard let id, let key = context.key(of: id, Entity.self) else { return nil }
        let column = Entity.relation(for: keyPath).slot.column
        guard let target = context.liveTarget(ObjectIdentifier(Entity.self), column, key, Target.self) else { return nil }
        return Query<Target>(context: context, id: context.id(Target.self, target))
    }
}
