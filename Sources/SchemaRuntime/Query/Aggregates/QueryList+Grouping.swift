/// Grouping a query's result: ``GroupedQuery`` computes aggregates per group.
extension QueryList {
    /// Groups the result by one or more fields: `group(by: \.status)`,
    /// `group(by: \.status, \.name)` (the key is then a tuple). Groups are told apart and
    /// sorted by the fields' index values, as indexes and sorts compare them.
    public func group<each Value: IndexKeyConvertible>(by field: repeat KeyPath<Entity, each Value>) -> GroupedQuery<Entity, (repeat each Value)> {
        let fields = (repeat each field)
        return GroupedQuery(query: self) { context, keys in
            var positions: [IndexKey: Int] = [:]
            var groups: [GroupedQuery<Entity, (repeat each Value)>.Group] = []
            for key in keys {
                guard let row = context.row(Entity.self, key) else { continue }
                let identity = Self.indexKey(of: row, repeat each fields)
                if let position = positions[identity] {
                    groups[position].members.append(key)
                } else {
                    positions[identity] = groups.count
                    groups.append(.init(key: (repeat row[keyPath: each fields]), order: identity, members: [key]))
                }
            }
            return groups
        }
    }

    /// Groups the result by what a to-one relation links each entity to: messages by chat,
    /// by author. The key is the related entity's id, nil for entities not linked (or linked
    /// to one that is not stored). Read from the link column: no rows are read to group, and
    /// `count()` reads none at all. Sorting by key orders ids by their index values when
    /// the id type has them (String, Int, UUID), nil first.
    public func group<Target, Directionality, Constraint>(
        by relation: KeyPath<Entity, ToOne<Target, Directionality, Constraint>>
    ) -> GroupedQuery<Entity, Target.ID?> {
        let column = Entity.relation(for: relation).slot.column
        return GroupedQuery(query: following(.toOne(column), to: Target.self)) { context, keys in
            Self.groupsByTarget(keys, in: context, Target.self) { context, key in
                context.liveTarget(ObjectIdentifier(Entity.self), column, key, Target.self).map { [$0] } ?? []
            }
        }
    }

    /// Groups the result by what a to-many relation links each entity to: recipes by tag,
    /// chats by member. An entity is a member of one group per entity it links to (a recipe
    /// with two tags counts in both groups), and of the nil group when it links to none that
    /// is stored. Aggregates are per group as for a to-one relation, so the counts of all
    /// groups add up to the number of links, not of entities. Read from the link lists: no
    /// rows are read to group. O(result + links).
    public func group<Target, Directionality>(
        by relation: KeyPath<Entity, ToMany<Target, Directionality>>
    ) -> GroupedQuery<Entity, Target.ID?> {
        let column = Entity.relation(for: relation).slot.column
        return GroupedQuery(query: following(.toMany(column), to: Target.self)) { context, keys in
            Self.groupsByTarget(keys, in: context, Target.self) { context, key in
                context.liveTargets(ObjectIdentifier(Entity.self), column, key, Target.self)
            }
        }
    }

    /// Groups keyed by the related entity's id: each stored key joins the group of each target
    /// `targets` gives it, or the nil group when it gives none; groups in order of first appearance.
    private static func groupsByTarget<Target: EntityModelProtocol>(
        _ keys: [Int32], in context: Context, _ target: Target.Type, targets: (Context, Int32) -> [Int32]
    ) -> [GroupedQuery<Entity, Target.ID?>.Group] {
        var positions: [Int32: Int] = [:]
        var groups: [GroupedQuery<Entity, Target.ID?>.Group] = []
        for key in keys where context.hasRow(Entity.self, key) {
            let linked = targets(context, key)
            for target in linked.isEmpty ? [-1] : linked {
                if let position = positions[target] {
                    groups[position].members.append(key)
                } else {
                    positions[target] = groups.count
                    let id = target < 0 ? nil : context.id(Target.self, target)
                    let order = id.map { ($0 as? any IndexKeyConvertible)?.indexValue ?? .string("\($0)") } ?? .null
                    groups.append(.init(key: id, order: IndexKey(order), members: [key]))
                }
            }
        }
        return groups
    }
}

extension QueryList {
    /// The query, noting that what runs on its result reads `slot` and the entities it links to.
    fileprivate func following<Target: EntityModelProtocol>(_ slot: LinkSlot, to target: Target.Type) -> QueryList {
        var copy = self
        copy.additionalReach.edges.append(ReadReach.Edge(source: ObjectIdentifier(Entity.self), slot: slot, target: ObjectIdentifier(Target.self)))
        return copy
    }
}
