/// The nested-query vocabulary shared by ``Query`` and ``QueryList``.
public protocol NestedQuery {
    associatedtype Entity: EntityModelProtocol
    /// The steps applied to each resolved entity.
    var nesting: Nesting<Entity> { get set }
}

extension NestedQuery {
    /// The query with one more nesting step, which reads `table` (the related entities') and
    /// the tables `nested` reaches from there.
    @usableFromInline
    func adding(_ step: @escaping Nesting<Entity>.Step, reading table: ObjectIdentifier, _ nested: Set<ObjectIdentifier> = [],
                following edge: ReadReach.Edge) -> Self {
        var copy = self
        copy.nesting.steps.append(step)
        copy.nesting.reachedTables.insert(table)
        copy.nesting.reachedTables.formUnion(nested)
        copy.nesting.reach.mutableEdges.append(edge)
        return copy
    }

    /// Resolves a to-one relation as an entity, shaped by `nested`.
    @inlinable
    public func with<Target, Directionality, Constraint>(
        _ keyPath: WritableKeyPath<Entity, ToOne<Target, Directionality, Constraint>>,
        _ nested: (Query<Target>) -> Query<Target> = { $0 }
    ) -> Self {
        toOne(keyPath, nested) { .relation($0) }
    }

    /// Resolves a to-one relation as a fragment (saved back with the fragment strategy).
    @inlinable
    public func fragment<Target, Directionality, Constraint>(
        _ keyPath: WritableKeyPath<Entity, ToOne<Target, Directionality, Constraint>>,
        _ nested: (Query<Target>) -> Query<Target> = { $0 }
    ) -> Self {
        toOne(keyPath, nested) { .fragment($0) }
    }

    /// Resolves a to-many relation as entities, shaped by `nested`, which may also filter,
    /// sort and limit them: `.with(\.$messages) { $0.filter(\.timestamp > t).sorted(by: \.timestamp) }`.
    @inlinable
    public func with<Target, Directionality>(
        _ keyPath: WritableKeyPath<Entity, ToMany<Target, Directionality>>,
        _ nested: (QueryList<Target>) -> QueryList<Target> = { $0 }
    ) -> Self {
        toMany(keyPath, nested) { .relation($0) }
    }

    /// Resolves a to-many relation as fragments (saved back with the fragment strategy).
    @inlinable
    public func fragment<Target, Directionality>(
        _ keyPath: WritableKeyPath<Entity, ToMany<Target, Directionality>>,
        _ nested: (QueryList<Target>) -> QueryList<Target> = { $0 }
    ) -> Self {
        toMany(keyPath, nested) { .fragment($0) }
    }

    /// Resolves a to-many relation as an appending slice (`.appending(relation:)`): a part of
    /// the list, typically filtered or limited by `nested`, that saving the entity elsewhere
    /// adds to the stored links instead of replacing them (SwiftletModel's `with(slice:)`).
    @inlinable
    public func with<Target, Directionality>(
        slice keyPath: WritableKeyPath<Entity, ToMany<Target, Directionality>>,
        _ nested: (QueryList<Target>) -> QueryList<Target> = { $0 }
    ) -> Self {
        toMany(keyPath, nested) { .appending(relation: $0) }
    }

    /// Resolves a to-many relation as an appending slice of fragments (`.appending(fragment:)`).
    @inlinable
    public func fragment<Target, Directionality>(
        slice keyPath: WritableKeyPath<Entity, ToMany<Target, Directionality>>,
        _ nested: (QueryList<Target>) -> QueryList<Target> = { $0 }
    ) -> Self {
        toMany(keyPath, nested) { .appending(fragment: $0) }
    }

    /// Resolves a to-many relation as an appending slice of ids (`.appending(ids:)`), shaped by
    /// `nested` (a filter, sort or limit).
    @inlinable
    public func id<Target, Directionality>(
        slice keyPath: WritableKeyPath<Entity, ToMany<Target, Directionality>>,
        _ nested: (QueryList<Target>) -> QueryList<Target> = { $0 }
    ) -> Self {
        toMany(keyPath, nested) { .appending(ids: $0.map { $0.id }) }
    }

    /// Resolves a to-one relation as the related id only.
    @inlinable
    public func id<Target, Directionality, Constraint>(
        _ keyPath: WritableKeyPath<Entity, ToOne<Target, Directionality, Constraint>>
    ) -> Self {
        let column = Entity.relation(for: keyPath).slot.column
        let source = ObjectIdentifier(Entity.self)
        return adding({ entity, key, context in
            if let target = context.liveTarget(source, column, key, Target.self) {
                entity[keyPath: keyPath] = .id(context.id(Target.self, target))
            }
        }, reading: ObjectIdentifier(Target.self), following: ReadReach.Edge(source: source, slot: .toOne(column), target: ObjectIdentifier(Target.self)))
    }

    /// Resolves a to-many relation as the related ids only.
    @inlinable
    public func id<Target, Directionality>(
        _ keyPath: WritableKeyPath<Entity, ToMany<Target, Directionality>>
    ) -> Self {
        let column = Entity.relation(for: keyPath).slot.column
        let source = ObjectIdentifier(Entity.self)
        return adding({ entity, key, context in
            let targets = context.liveTargets(source, column, key, Target.self)
            entity[keyPath: keyPath] = .ids(targets.map { context.id(Target.self, $0) })
        }, reading: ObjectIdentifier(Target.self), following: ReadReach.Edge(source: source, slot: .toMany(column), target: ObjectIdentifier(Target.self)))
    }

    /// Resolves every relation, level by level: `.with(.entities, .fragments, .ids)`.
    @inlinable
    public func with(_ levels: Nested...) -> Self {
        var copy = self
        let bulk = Nesting<Entity>.bulk(levels[...])
        copy.nesting.steps += bulk.steps
        copy.nesting.reachedTables.formUnion(bulk.reachedTables)
        copy.nesting.reach.mutableEdges += bulk.reach.edges
        return copy
    }

    @inlinable
    func toOne<Target, Directionality, Constraint>(
        _ keyPath: WritableKeyPath<Entity, ToOne<Target, Directionality, Constraint>>,
        _ nested: (Query<Target>) -> Query<Target>,
        _ wrap: @escaping (Target) -> ToOne<Target, Directionality, Constraint>
    ) -> Self {
        let column = Entity.relation(for: keyPath).slot.column
        let source = ObjectIdentifier(Entity.self)
        let inner = nested(Query<Target>()).nesting
        return adding({ entity, key, context in
            if let target = context.liveTarget(source, column, key, Target.self),
               let resolved = context.resolve(Target.self, key: target, nesting: inner) {
                entity[keyPath: keyPath] = wrap(resolved)
            }
        }, reading: ObjectIdentifier(Target.self), inner.reachedTables,
           following: ReadReach.Edge(source: source, slot: .toOne(column), target: ObjectIdentifier(Target.self), onward: inner.reach))
    }

    @inlinable
    func toMany<Target, Directionality>(
        _ keyPath: WritableKeyPath<Entity, ToMany<Target, Directionality>>,
        _ nested: (QueryList<Target>) -> QueryList<Target>,
        _ wrap: @escaping ([Target]) -> ToMany<Target, Directionality>
    ) -> Self {
        let column = Entity.relation(for: keyPath).slot.column
        let source = ObjectIdentifier(Entity.self)
        // The template's `.all` stands for the related entities when it runs (`base`).
        let inner = nested(QueryList<Target>(context: nil, source: .all))
        let refines = inner.isRefined
        return adding({ entity, key, context in
            var links = Array(context.storageIfPresent(source)?.toManyLinks(column, key).keys ?? [])
            if refines { links = inner.execute(in: context, base: links).keys }
            var resolved: [Target] = []
            resolved.reserveCapacity(links.count)
            for target in links {
                if let value = context.resolve(Target.self, key: target, nesting: inner.nesting) { resolved.append(value) }
            }
            entity[keyPath: keyPath] = wrap(resolved)
        }, reading: ObjectIdentifier(Target.self), inner.nesting.reachedTables,
           following: ReadReach.Edge(source: source, slot: .toMany(column), target: ObjectIdentifier(Target.self), onward: inner.queryReach))
    }
}
