/// Filters by related entities: the schema-first form of a join.
///
/// ```swift
/// Message.filter(.related(\.$chat, where: .string(\.title, contains: "team")), in: context)
/// Chat.filter(.any(\.$messages, where: \.timestamp > cutoff), in: context)
/// Chat.filter(.none(\.$messages), in: context)                     // chats without messages
/// User.filter(.any(\.$chats, where: .linkCount(\.$messages, 11...)), in: context)
/// ```
///
/// Conditions see stored related entities only (a link to an id that is not stored counts
/// as no link), compose with `&&`, `||` and `!`, and nest. `any` over a mutual relation is
/// answered from the related side: the related query runs with its own indexes, then the
/// inverse links give the entities (`explain()` shows both).
extension EntityPredicate where Entity: EntityModelProtocol {
    /// Some linked entity satisfies `condition` (with no condition: some entity is linked).
    public static func any<Target, Directionality>(_ relation: KeyPath<Entity, ToMany<Target, Directionality>>,
                                                   where condition: Predicate<Target>? = nil) -> EntityPredicate {
        quantified(relation, .any, condition)
    }

    /// Every linked entity satisfies `condition` (true when none is linked).
    public static func all<Target, Directionality>(_ relation: KeyPath<Entity, ToMany<Target, Directionality>>,
                                                   where condition: Predicate<Target>) -> EntityPredicate {
        quantified(relation, .all, condition)
    }

    /// No linked entity satisfies `condition` (with no condition: none is linked).
    public static func none<Target, Directionality>(_ relation: KeyPath<Entity, ToMany<Target, Directionality>>,
                                                    where condition: Predicate<Target>? = nil) -> EntityPredicate {
        quantified(relation, .none, condition)
    }

    /// The entity linked through a to-one relation is stored and satisfies `condition` (with
    /// no condition: it is linked to a stored entity).
    public static func related<Target, Directionality, Constraint>(_ relation: KeyPath<Entity, ToOne<Target, Directionality, Constraint>>,
                                                                   where condition: Predicate<Target>? = nil) -> EntityPredicate {
        quantified(relation, .any, condition)
    }

    /// The number of stored entities linked through a to-many relation is in `range`:
    /// `.linkCount(\.$messages, 11...)` for more than ten, `.linkCount(\.$messages, 0...0)`.
    public static func linkCount<Target, Directionality>(_ relation: KeyPath<Entity, ToMany<Target, Directionality>>,
                                                         _ range: some RangeExpression<Int> & Sendable) -> EntityPredicate {
        let descriptor = Entity.relation(for: relation)
        let table = ObjectIdentifier(Entity.self)
        return EntityPredicate(.related(RelationCondition(
            name: "\(Entity.entityName).\(descriptor.name) count",
            evaluate: { context, key in range.contains(context.linkedTargets(table, descriptor.slot, key, Target.self).count) },
            candidates: nil, reachedTables: [descriptor.targetTable],
            reach: ReadReach.Edge(source: table, slot: descriptor.slot, target: descriptor.targetTable))))
    }

    enum Quantifier { case any, all, none }

    private static func quantified<Target: EntityModelProtocol>(_ relation: AnyKeyPath, _ quantifier: Quantifier,
                                                                _ condition: Predicate<Target>?) -> EntityPredicate {
        let descriptor = Entity.relation(for: relation)
        let table = ObjectIdentifier(Entity.self)
        let slot = descriptor.slot
        let satisfies: (Context, Int32) -> Bool = { context, key in
            guard let condition else { return true }
            guard let row = context.row(Target.self, key) else { return false }
            let savedAt = condition.node.readsSaveTimes ? context.savedAt(Target.self, key: key) : nil
            return condition.evaluate(row, in: context, key: key, savedAt: savedAt)
        }
        let evaluate: (Context, Int32) -> Bool
        switch quantifier {
        case .any: evaluate = { context, key in context.linkedTargets(table, slot, key, Target.self).contains { satisfies(context, $0) } }
        case .all: evaluate = { context, key in context.linkedTargets(table, slot, key, Target.self).allSatisfy { satisfies(context, $0) } }
        case .none: evaluate = { context, key in !context.linkedTargets(table, slot, key, Target.self).contains { satisfies(context, $0) } }
        }
        var candidates: ((Context) -> (keys: [Int32], plan: QueryPlan))?
        if quantifier == .any, let inverse = descriptor.inverse {
            // The related entities satisfying the condition, then who links to them: exact,
            // as the link engine keeps both sides of a mutual relation in step.
            candidates = { context in
                var related = QueryList<Target>(context: context, source: .all)
                related.predicate = condition
                let (targets, plan) = related.execute(in: context)
                var found = Set<Int32>()
                for target in targets {
                    for source in context.targetKeys(ObjectIdentifier(Target.self), inverse, of: target) where context.hasRow(Entity.self, source) {
                        found.insert(source)
                    }
                }
                return (Array(found), plan)
            }
        }
        let name = "\(Entity.entityName).\(descriptor.name)"
        return EntityPredicate(.related(RelationCondition(
            name: quantifier == .any ? name : "\(quantifier) \(name)",
            evaluate: evaluate, candidates: candidates,
            reachedTables: [descriptor.targetTable] + (condition?.node.reachedTables ?? []),
            reach: ReadReach.Edge(source: table, slot: slot, target: descriptor.targetTable, onward: condition?.node.readReach ?? ReadReach()))))
    }
}

extension Context {
    /// The keys a slot of `key` links to, in link order, stored targets only.
    func linkedTargets<Target: EntityModelProtocol>(_ table: ObjectIdentifier, _ slot: LinkSlot, _ key: Int32, _ target: Target.Type) -> [Int32] {
        switch slot.cardinality {
        case .toMany: liveTargets(table, slot.column, key, target)
        case .toOne: liveTarget(table, slot.column, key, target).map { [$0] } ?? []
        }
    }
}
