/// A condition on the entities a relation links to (``Predicate/any(_:where:)``,
/// ``Predicate/all(_:where:)``, ``Predicate/none(_:where:)``, ``Predicate/related(_:where:)``,
/// ``Predicate/linkCount(_:_:)``), type-erased over the related type.
///
/// Only a context knows links, so it is evaluated with the entity's key in a context; the
/// public `Predicate.evaluate(_:)` of a bare entity treats it as not satisfied.
struct RelationCondition {
    /// `Chat.messages` in plans.
    let name: String
    /// Whether the entity at a key in a context satisfies the condition: reads its links and,
    /// for a condition on the related entities, their stored rows.
    let evaluate: (Context, Int32) -> Bool
    /// For `any` over a mutual relation: the entities satisfying the condition, found from the
    /// related side (the related query, using its indexes, then the inverse links), exact;
    /// with the related query's plan. Nil where the condition cannot be answered that way.
    let candidates: ((Context) -> (keys: [Int32], plan: QueryPlan))?
    /// Tables whose changes may change the answer: the related one and those its condition
    /// reads (``QueryReach``).
    let reachedTables: [ObjectIdentifier]
    /// The relation it follows and what its condition on the related entities reads.
    let reach: ReadReach.Edge
}
