@_spi(SchemaStore) import SchemaRuntime

/// The live queries of a store by what their last results depend on (``QueryReach``), so a
/// commit finds the queries it can affect from the keys it touched: O(touched keys + queries
/// signalled), however many live queries there are.
///
/// A query is in one of three states: pending (signalled; its consumer has yet to read the
/// graph, and will read this commit's or a later one, so further commits need not signal it),
/// evaluating (its consumer may have read a graph older than a commit arriving now, so every
/// commit signals it), or waiting (a commit signals it when it touches its reach).
struct LiveQueryIndex {
    private var tableWatchers: [ObjectIdentifier: Set<Int>] = [:]
    private var keyWatchers: [ObjectIdentifier: [Int32: Set<Int>]] = [:]
    private var reaches: [Int: QueryReach] = [:]
    private var pending: Set<Int> = []
    private var evaluating: Set<Int> = []

    /// A new query: pending, its first result due.
    mutating func add(_ id: Int) {
        pending.insert(id)
    }

    mutating func remove(_ id: Int) {
        unwatch(id)
        pending.remove(id)
        evaluating.remove(id)
    }

    mutating func beginEvaluation(_ id: Int) {
        pending.remove(id)
        evaluating.insert(id)
    }

    /// The evaluation ended with a result that depends on `reach`. O(reach).
    mutating func endEvaluation(_ id: Int, reach: QueryReach) {
        evaluating.remove(id)
        unwatch(id)
        reaches[id] = reach
        for table in reach.tables { tableWatchers[table, default: []].insert(id) }
        for (table, keys) in reach.keys {
            for key in keys { keyWatchers[table, default: [:]][key, default: []].insert(id) }
        }
    }

    /// The queries a commit touching `touched` must signal, now marked pending.
    mutating func signalled(by touched: [ObjectIdentifier: [Int32]]) -> [Int] {
        var affected = evaluating
        for (table, keys) in touched {
            if let watchers = tableWatchers[table] { affected.formUnion(watchers) }
            guard let byKey = keyWatchers[table] else { continue }
            for key in keys { if let watchers = byKey[key] { affected.formUnion(watchers) } }
        }
        affected.subtract(pending)
        pending.formUnion(affected)
        return affected.sorted()
    }

    /// The queries a commit changing `tables` must signal, now marked pending: those
    /// watching the tables or any key of them.
    mutating func signalled(byTables tables: Set<ObjectIdentifier>) -> [Int] {
        var affected = evaluating
        for table in tables {
            if let watchers = tableWatchers[table] { affected.formUnion(watchers) }
            for watchers in keyWatchers[table]?.values ?? [:].values { affected.formUnion(watchers) }
        }
        affected.subtract(pending)
        pending.formUnion(affected)
        return affected.sorted()
    }

    private mutating func unwatch(_ id: Int) {
        guard let reach = reaches.removeValue(forKey: id) else { return }
        for table in reach.tables { tableWatchers[table]?.remove(id) }
        for (table, keys) in reach.keys {
            for key in keys {
                keyWatchers[table]?[key]?.remove(id)
                if keyWatchers[table]?[key]?.isEmpty == true { keyWatchers[table]?[key] = nil }
            }
        }
    }
}
