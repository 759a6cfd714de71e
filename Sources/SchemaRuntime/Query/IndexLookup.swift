/// One way to answer a conjunction of comparisons from an index, chosen by the planner.
///
/// A lookup is counted before it is read, so among several usable indexes only the one
/// with the fewest entities is read, and a count the lookup answers exactly never reads
/// the entities at all (``QueryList/count()``).
struct IndexLookup {
    enum Access {
        case unique(slot: Int, key: IndexKey)
        case hash(slot: Int, key: IndexKey)
        case ordered(slot: Int, range: OrderedIndexStorage.Range)
    }

    let access: Access
    /// For `explain()`: `index range Message.timestampIndex`.
    let step: String
    /// Whether the index answers every comparison it was chosen for, so its entities need no
    /// check against them.
    let answersAll: Bool

    /// The number of entities the lookup finds: O(1) for unique and hash indexes (unique keys shared by accepted collisions: O(k)), O(log n +
    /// n / B) for an ordered range (``OrderedIndexStorage/count(in:)``).
    func count<Entity>(in table: EntityTable<Entity>) -> Int {
        switch access {
        case .unique(let slot, let key): table.unique[slot].entities(key).count
        case .hash(let slot, let key): table.hashed[slot].count(key)
        case .ordered(let slot, let range): table.ordered[slot].count(in: range)
        }
    }

    /// The entities the lookup finds, in index order.
    func keys<Entity>(in table: EntityTable<Entity>) -> [Int32] {
        switch access {
        case .unique(let slot, let key): table.unique[slot].entities(key)
        case .hash(let slot, let key): table.hashed[slot].entities(key)
        case .ordered(let slot, let range): table.ordered[slot].range(equal: range.equal, lower: range.lower, upper: range.upper)
        }
    }
}
