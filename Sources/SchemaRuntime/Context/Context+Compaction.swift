extension Context {
    /// Frees the storage of ids that are neither stored nor linked to.
    ///
    /// The context interns every id it sees, and keeps the slot after the entity is deleted
    /// (a one-way link elsewhere may still name it). An id that is neither stored nor linked
    /// is forgotten at once, so saving it again puts it at the end of context order; its slot
    /// stays allocated until compaction. In a long-running app that deletes many entities,
    /// call `compact()` now and then, for example after a sync. Everything observable stays
    /// the same, including context order; indexes are rebuilt.
    ///
    /// O(total size of the context). Must not be called inside a transaction.
    public mutating func compact() {
        precondition(!isInTransaction, "compact() cannot run inside a transaction")
        journal = nil
        // 1. Mark the keys in use: stored rows, keys with links, and keys that links point to.
        var inUse: [ObjectIdentifier: [Bool]] = [:]
        for (id, table) in tables { inUse[id] = (0..<table.keyCount).map { table.hasRow(Int32($0)) } }
        for (id, table) in tables {
            for (slot, target) in table.linkTargets {
                switch slot.cardinality {
                case .toOne:
                    for (key, value) in table.toOne[slot.column].enumerated() where value >= 0 {
                        inUse[id]![key] = true
                        inUse[target]![Int(value)] = true
                    }
                case .toMany:
                    for (key, list) in table.toMany[slot.column].enumerated() where !list.isEmpty {
                        inUse[id]![key] = true
                        for value in list.keys { inUse[target]![Int(value)] = true }
                    }
                }
            }
        }
        // 2. New keys keep the old order, so context order is unchanged.
        var remaps: [ObjectIdentifier: [Int32]] = [:]
        for (id, used) in inUse {
            var next: Int32 = 0
            remaps[id] = used.map { used in
                guard used else { return -1 }
                defer { next += 1 }
                return next
            }
        }
        // 3. Rewrite every table. (A link's target table always exists: interning creates it.)
        for (id, table) in tables {
            tables[id] = table.compacted(own: remaps[id]!, targets: remaps)
        }
        // 4. Recount references for the new keys.
        for (id, table) in tables {
            for (slot, target) in table.linkTargets {
                switch slot.cardinality {
                case .toOne:
                    for (key, value) in table.toOne[slot.column].enumerated() where value >= 0 {
                        countLink(id, Int32(key), target, value, 1)
                    }
                case .toMany:
                    for (key, list) in table.toMany[slot.column].enumerated() {
                        for value in list.keys { countLink(id, Int32(key), target, value, 1) }
                    }
                }
            }
        }
    }
}
