/// What a query's result depends on in the context it was resolved in: the tables where any
/// change may change it, and the rows (by key) of other tables where a change may. A store
/// re-runs a live query after a commit only when the commit's ``ChangeSet`` touches its
/// reach, so a query over one chat's messages is not re-run for writes to other chats.
///
/// The reach over-approximates: a commit it lets through may leave the result as it was
/// (the query is then re-run for nothing), but a commit it filters out cannot change the
/// result. It holds for the context it was computed in and for every later context reached
/// by commits it filtered out, since those leave everything it depends on as it was.
@_spi(SchemaStore)
public struct QueryReach: Sendable {
    /// Tables where any row or link change may change the result.
    public private(set) var tables: Set<ObjectIdentifier> = []
    /// Per table: the keys whose row or links may change the result.
    public private(set) var keys: [ObjectIdentifier: Set<Int32>] = [:]

    public init() {}

    mutating func watch(_ table: ObjectIdentifier) {
        tables.insert(table)
        keys[table] = nil
    }

    @usableFromInline
    mutating func watch<Keys: Sequence<Int32>>(_ keys: Keys, of table: ObjectIdentifier) {
        guard !tables.contains(table) else { return }
        self.keys[table, default: []].formUnion(keys)
    }

    mutating func formUnion(_ other: QueryReach) {
        for table in other.tables { watch(table) }
        for (table, keys) in other.keys { watch(keys, of: table) }
    }

    /// Whether the committed `changes` may have changed the result. O(changed keys).
    public func isAffected(by changes: ChangeSet) -> Bool {
        isAffected(by: changes.touchedKeys)
    }

    /// ``isAffected(by:)`` for changes summarized once by ``ChangeSet/touchedKeys``, for
    /// testing many queries against one commit. O(touched keys).
    public func isAffected(by touched: [ObjectIdentifier: [Int32]]) -> Bool {
        for (table, changed) in touched {
            if tables.contains(table) { return true }
            guard let watched = keys[table], !watched.isEmpty else { continue }
            if changed.contains(where: { watched.contains($0) }) { return true }
        }
        return false
    }
}

extension QueryList {
    /// What the result in `context` depends on: the source's candidates (or the whole table
    /// for a query over every entity), the entity a `related(_:)` list starts from, and the
    /// tables the nested relations read. O(candidates).
    @_spi(SchemaStore)
    public func reach(in context: Context) -> QueryReach {
        var reach = sourceReach(in: context)
        for table in nesting.reachedTables { reach.watch(table) }
        // Conditions on related entities read their tables (and their links to this one).
        for table in predicate?.node.reachedTables ?? [] { reach.watch(table) }
        // BM25 ranking reads the whole table's statistics (document count, lengths, how
        // many entities hold each word): any write to the table can reorder the result.
        if sortKeys.isEmpty, let predicate, Self.rankingCondition(predicate.node) != nil {
            reach.watch(ObjectIdentifier(Entity.self))
        }
        return reach
    }

    private func sourceReach(in context: Context) -> QueryReach {
        let table = ObjectIdentifier(Entity.self)
        var reach = QueryReach()
        switch source {
        case .all:
            reach.watch(table)
        case .ids(let ids):
            // An id without a row can be saved later under a key no one knows yet.
            let keys = ids.map { context.key(of: $0, Entity.self) }
            if keys.allSatisfy({ $0.map { context.hasRow(Entity.self, $0) } ?? false }) {
                reach.watch(keys.compactMap { $0 }, of: table)
            } else {
                reach.watch(table)
            }
        case .keys(let keys):
            reach.watch(keys, of: table)
        case .derived:
            // `originReach` covers the keys too (all linked ones, not only the stored).
            guard let originReach else {
                reach.watch(table)
                break
            }
            reach.formUnion(originReach(context))
        case .union(let branches), .intersection(let branches):
            for branch in branches { reach.formUnion(branch.sourceReach(in: context)) }
        }
        return reach
    }
}

extension Query {
    /// What the result in `context` depends on: the entity's row and links (or its whole
    /// table while it is not stored), the entity a derived query starts from, and the tables
    /// the nested relations read.
    @_spi(SchemaStore)
    public func reach(in context: Context) -> QueryReach {
        var reach = originReach?(context) ?? QueryReach()
        if let key = key(in: context), context.hasRow(Entity.self, key) {
            reach.watch([key], of: ObjectIdentifier(Entity.self))
        } else {
            reach.watch(ObjectIdentifier(Entity.self))
        }
        for table in nesting.reachedTables { reach.watch(table) }
        return reach
    }
}
