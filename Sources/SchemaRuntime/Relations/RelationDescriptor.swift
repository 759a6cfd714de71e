/// Static description of a to-one relation, emitted by `schemagen` for each relation.
public struct ToOneRelationDescriptor<Source: EntityModelProtocol, Target: EntityModelProtocol, Directionality, Constraint>: Sendable {
    /// The relation's name in the schema.
    public let name: String
    /// The relation property's projected value (`\Message.$author`).
    public let keyPath: WritableKeyPath<Source, ToOne<Target, Directionality, Constraint>> & Sendable
    /// The to-one column of `Source` that stores the links.
    public let column: Int
    /// The slot of the inverse relation on `Target`, for mutual relations.
    public let inverse: LinkSlot?
    /// What deleting a `Source` does to the linked `Target`.
    public let deleteRule: DeleteRule

    public init(_ name: String, _ keyPath: WritableKeyPath<Source, ToOne<Target, Directionality, Constraint>> & Sendable,
                column: Int, inverse: LinkSlot? = nil, deleteRule: DeleteRule = .nullify) {
        self.name = name
        self.keyPath = keyPath
        self.column = column
        self.inverse = inverse
        self.deleteRule = deleteRule
    }

    /// The type-erased form listed in `Source.relations`.
    public var erased: AnyRelation<Source> {
        let keyPath = keyPath
        let column = column
        let inverse = inverse
        return AnyRelation(
            name: name, keyPath: keyPath, slot: .toOne(column), target: Target.self,
            inverse: inverse, deleteRule: deleteRule, isRequired: Constraint.self == Required.self,
            resolveBulk: { entity, key, context, levels in
                guard let level = levels.first,
                      let target = context.liveTarget(ObjectIdentifier(Source.self), column, key, Target.self) else { return }
                switch level {
                case .ids:
                    entity[keyPath: keyPath] = .id(context.id(Target.self, target))
                case .entities, .fragments:
                    let nested = Nesting<Target>.bulk(levels.dropFirst())
                    if let resolved = context.resolve(Target.self, key: target, nesting: nested) {
                        entity[keyPath: keyPath] = level == .entities ? .relation(resolved) : .fragment(resolved)
                    }
                }
            },
            deleteTargets: { context, keys in try context.deleteEntities(Target.self, keys: keys) },
            keepStoredTargets: { entity, context, keepsOneWay in
                guard keepsOneWay == false || inverse != nil,
                      case .id(let id) = entity[keyPath: keyPath].state,
                      !context.isStoredOrSelf(id, Target.self, restoring: entity) else { return }
                entity[keyPath: keyPath] = .none
            },
            loadedEntities: { entity in
                guard case .entity(let target, _) = entity[keyPath: keyPath].state else { return [] }
                return [target]
            },
            embeddedSaves: { entity in
                guard case .entity(let target, let fragment) = entity[keyPath: keyPath].state else { return [] }
                return [.start(target, options: fragment ? Target.fragmentMergeStrategy : Target.defaultMergeStrategy)]
            },
            link: { [self] entity, key, context in context.link(entity[keyPath: keyPath], of: key, self) },
            linkAllIDs: { entity, key, context in
                let target = context.storageIfPresent(ObjectIdentifier(Source.self))?.toOneLink(column, key) ?? -1
                if target >= 0 { entity[keyPath: keyPath] = .id(context.id(Target.self, target)) }
            },
            queueArchives: { context, key, work in
                guard let target = context.liveTarget(ObjectIdentifier(Source.self), column, key, Target.self) else { return }
                work.steps.append { context, work in try context.archiveOne(Target.self, key: target, work: &work) }
            }
        )
    }
}

/// Static description of a to-many relation, emitted by `schemagen` for each relation.
public struct ToManyRelationDescriptor<Source: EntityModelProtocol, Target: EntityModelProtocol, Directionality>: Sendable {
    /// The relation's name in the schema.
    public let name: String
    /// The relation property's projected value (`\Chat.$messages`).
    public let keyPath: WritableKeyPath<Source, ToMany<Target, Directionality>> & Sendable
    /// The to-many column of `Source` that stores the links.
    public let column: Int
    /// The slot of the inverse relation on `Target`, for mutual relations.
    public let inverse: LinkSlot?
    /// What deleting a `Source` does to the linked `Target`s.
    public let deleteRule: DeleteRule

    public init(_ name: String, _ keyPath: WritableKeyPath<Source, ToMany<Target, Directionality>> & Sendable,
                column: Int, inverse: LinkSlot? = nil, deleteRule: DeleteRule = .nullify) {
        self.name = name
        self.keyPath = keyPath
        self.column = column
        self.inverse = inverse
        self.deleteRule = deleteRule
    }

    /// The type-erased form listed in `Source.relations`.
    public var erased: AnyRelation<Source> {
        let keyPath = keyPath
        let column = column
        let inverse = inverse
        return AnyRelation(
            name: name, keyPath: keyPath, slot: .toMany(column), target: Target.self,
            inverse: inverse, deleteRule: deleteRule, isRequired: false,
            resolveBulk: { entity, key, context, levels in
                guard let level = levels.first else { return }
                let targets = context.liveTargets(ObjectIdentifier(Source.self), column, key, Target.self)
                switch level {
                case .ids:
                    entity[keyPath: keyPath] = .ids(targets.map { context.id(Target.self, $0) })
                case .entities, .fragments:
                    let nested = Nesting<Target>.bulk(levels.dropFirst())
                    let resolved = targets.compactMap { context.resolve(Target.self, key: $0, nesting: nested) }
                    entity[keyPath: keyPath] = level == .entities ? .relation(resolved) : .fragment(resolved)
                }
            },
            deleteTargets: { context, keys in try context.deleteEntities(Target.self, keys: keys) },
            keepStoredTargets: { entity, context, keepsOneWay in
                guard keepsOneWay == false || inverse != nil,
                      case .ids(let ids, let appending) = entity[keyPath: keyPath].state else { return }
                let kept = ids.filter { context.isStoredOrSelf($0, Target.self, restoring: entity) }
                entity[keyPath: keyPath] = ToMany(state: .ids(kept, appending: appending))
            },
            loadedEntities: { entity in
                guard case .entities(let targets, _, _) = entity[keyPath: keyPath].state else { return [] }
                return targets
            },
            embeddedSaves: { entity in
                guard case .entities(let targets, let fragment, _) = entity[keyPath: keyPath].state else { return [] }
                let strategy = fragment ? Target.fragmentMergeStrategy : Target.defaultMergeStrategy
                return targets.map { .start($0, options: strategy) }
            },
            link: { [self] entity, key, context in context.link(entity[keyPath: keyPath], of: key, self) },
            linkAllIDs: { entity, key, context in
                let targets = context.storageIfPresent(ObjectIdentifier(Source.self))?.toManyLinks(column, key).keys ?? []
                entity[keyPath: keyPath] = .ids(targets.map { context.id(Target.self, $0) })
            },
            queueArchives: { context, key, work in
                // Reversed: the worklist pops from the end, so targets are archived in link order.
                for target in context.liveTargets(ObjectIdentifier(Source.self), column, key, Target.self).reversed() {
                    work.steps.append { context, work in try context.archiveOne(Target.self, key: target, work: &work) }
                }
            }
        )
    }
}
