/// Typed relation operations used by generated `save` and `delete`.
extension Context {
    /// Saves a to-one relation of the entity at `key`: saves an embedded entity, then links.
    /// `.none` leaves the stored link untouched; `.null` removes it.
    @inlinable
    public mutating func saveRelation<Source, Target, Directionality, Constraint>(
        _ relation: ToOne<Target, Directionality, Constraint>, of key: EntityKey<Source>,
        _ descriptor: ToOneRelationDescriptor<Source, Target, Directionality, Constraint>
    ) throws {
        if case .entity(let entity, let fragment) = relation.state {
            try saveEmbedded(entity, options: fragment ? Target.fragmentMergeStrategy : Target.defaultMergeStrategy)
        }
        link(relation, of: key, descriptor)
    }

    /// Links the entity at `key` as a to-one relation says; embedded entities are linked by id
    /// and must already be saved. `.none` leaves the stored link untouched; `.null` removes it.
    @inlinable
    mutating func link<Source, Target, Directionality, Constraint>(
        _ relation: ToOne<Target, Directionality, Constraint>, of key: EntityKey<Source>,
        _ descriptor: ToOneRelationDescriptor<Source, Target, Directionality, Constraint>
    ) {
        let target: Int32
        switch relation.state {
        case .none:
            return
        case .null:
            target = -1
        case .id(let id):
            target = intern(id, Target.self)
        case .entity(let entity, _):
            target = intern(entity.id, Target.self)
        }
        setToOne(ObjectIdentifier(Source.self), descriptor.column, key.rawValue,
                 to: target, ObjectIdentifier(Target.self), inverse: descriptor.inverse)
    }

    /// Saves a to-many relation of the entity at `key`: saves embedded entities, then replaces
    /// or appends the links. `.none` leaves the stored links untouched.
    @inlinable
    public mutating func saveRelation<Source, Target, Directionality>(
        _ relation: ToMany<Target, Directionality>, of key: EntityKey<Source>,
        _ descriptor: ToManyRelationDescriptor<Source, Target, Directionality>
    ) throws {
        if case .entities(let entities, let fragment, _) = relation.state {
            let strategy = fragment ? Target.fragmentMergeStrategy : Target.defaultMergeStrategy
            faultEntities(ids: entities.map { $0.id }, Target.self)
            for entity in entities { try saveEmbedded(entity, options: strategy) }
        }
        link(relation, of: key, descriptor)
    }

    /// Replaces or appends the links of the entity at `key` as a to-many relation says;
    /// embedded entities are linked by id and must already be saved. O(old + new) plus the
    /// inverse updates.
    @inlinable
    mutating func link<Source, Target, Directionality>(
        _ relation: ToMany<Target, Directionality>, of key: EntityKey<Source>,
        _ descriptor: ToManyRelationDescriptor<Source, Target, Directionality>
    ) {
        let targets: [Int32]
        let appending: Bool
        switch relation.state {
        case .none:
            return
        case .ids(let ids, let append):
            appending = append
            targets = ids.map { intern($0, Target.self) }
        case .entities(let entities, _, let append):
            appending = append
            targets = entities.map { intern($0.id, Target.self) }
        }
        setToMany(ObjectIdentifier(Source.self), descriptor.column, key.rawValue, to: targets,
                  appending: appending, ObjectIdentifier(Target.self), inverse: descriptor.inverse)
    }

    /// Applies a to-one relation's delete rule for the entity at `key`: removes the link (and
    /// its inverse), then, for `.cascade`, queues the entity that was linked for deletion.
    @inlinable
    public mutating func applyDeleteRule<Source, Target, Directionality, Constraint>(
        _ descriptor: ToOneRelationDescriptor<Source, Target, Directionality, Constraint>, of key: EntityKey<Source>,
        cascade: inout CascadeDeletes
    ) throws {
        let targets = clearLinks(ObjectIdentifier(Source.self), .toOne(descriptor.column), key.rawValue,
                                 ObjectIdentifier(Target.self), inverse: descriptor.inverse)
        if descriptor.deleteRule == .cascade { cascade.append(Target.self, keys: targets) }
    }

    /// Applies a to-many relation's delete rule for the entity at `key`: removes the links (and
    /// their inverses), then, for `.cascade`, queues the entities that were linked for deletion.
    @inlinable
    public mutating func applyDeleteRule<Source, Target, Directionality>(
        _ descriptor: ToManyRelationDescriptor<Source, Target, Directionality>, of key: EntityKey<Source>,
        cascade: inout CascadeDeletes
    ) throws {
        let targets = clearLinks(ObjectIdentifier(Source.self), .toMany(descriptor.column), key.rawValue,
                                 ObjectIdentifier(Target.self), inverse: descriptor.inverse)
        if descriptor.deleteRule == .cascade { cascade.append(Target.self, keys: targets) }
    }

    /// Deletes the stored entities among `keys`, and everything their cascade rules reach.
    @inlinable
    mutating func deleteEntities<Entity: EntityModelProtocol>(_ type: Entity.Type, keys: [Int32]) throws {
        var cascade = CascadeDeletes()
        cascade.append(type, keys: keys)
        try run(cascade)
    }

    @inlinable
    func hasRow<Entity: EntityModelProtocol>(_ type: Entity.Type, _ key: Int32) -> Bool {
        tableIfPresent(type)?.hasRow(key) ?? false
    }
}

extension EntityModelProtocol {
    /// Removes the links of one relation (and their inverses), keeping both entities stored.
    /// The `inverse` key path documents the mutual side; the schema already knows it.
    ///
    /// Throws ``RequiredRelationViolation``, changing nothing, when the inverse is a required
    /// relation: the detached entities would be left without it.
    public func detach<Target, Directionality>(_ keyPath: WritableKeyPath<Self, ToMany<Target, Directionality>>,
                                               inverse: PartialKeyPath<Target>? = nil,
                                               in context: inout Context) throws {
        try detach(Self.relation(for: keyPath), in: &context)
    }

    /// Removes the link of an optional to-one relation (and its inverse), keeping both entities
    /// stored. A required relation cannot be detached, as it cannot be set to `.null`.
    ///
    /// Throws ``RequiredRelationViolation``, changing nothing, when the inverse is a required
    /// relation: the detached entity would be left without it.
    public func detach<Target, Directionality>(_ keyPath: WritableKeyPath<Self, ToOne<Target, Directionality, Nullable>>,
                                               inverse: PartialKeyPath<Target>? = nil,
                                               in context: inout Context) throws {
        try detach(Self.relation(for: keyPath), in: &context)
    }

    private func detach(_ relation: AnyRelation<Self>, in context: inout Context) throws {
        try removeLinks(relation, deletingTargets: false, in: &context)
    }

    /// Removes the links of one relation and deletes the entities that were linked.
    public func delete<Target, Directionality>(_ keyPath: WritableKeyPath<Self, ToMany<Target, Directionality>>,
                                               inverse: PartialKeyPath<Target>? = nil,
                                               from context: inout Context) throws {
        try deleteLinked(Self.relation(for: keyPath), from: &context)
    }

    /// Removes the link of one to-one relation and deletes the entity that was linked.
    public func delete<Target, Directionality, Constraint>(_ keyPath: WritableKeyPath<Self, ToOne<Target, Directionality, Constraint>>,
                                                           inverse: PartialKeyPath<Target>? = nil,
                                                           from context: inout Context) throws {
        try deleteLinked(Self.relation(for: keyPath), from: &context)
    }

    private func deleteLinked(_ relation: AnyRelation<Self>, from context: inout Context) throws {
        try removeLinks(relation, deletingTargets: true, in: &context)
    }

    /// Clears one relation's links (and their inverses) in a transaction, then deletes the
    /// entities that were linked if asked to.
    private func removeLinks(_ relation: AnyRelation<Self>, deletingTargets: Bool, in context: inout Context) throws {
        try context.transaction { context in
            context.faultEntity(id: id, Self.self)
            guard let key = context.key(of: id, Self.self) else { return }
            let targets = context.clearLinks(ObjectIdentifier(Self.self), relation.slot, key,
                                             relation.targetTable, inverse: relation.inverse)
            if deletingTargets { try relation.deleteTargets(&context, targets) }
        }
    }
}
