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
    /// O(total size of the context). Inside a transaction it does nothing: compaction
    /// renumbers keys, which the transaction's undo log refers to (compact after it ends).
    public mutating func compact() {
        guard !isInTransaction else { return }
        journal = nil
        // 1. The keys in use: stored rows, and keys that a link is stored at or points to
        //    (exactly the keys with references; the others' ids are already forgotten).
        var inUse: [ObjectIdentifier: [Bool]] = [:]
        for (id, table) in tables { inUse[id] = (0..<table.keyCount).map { !table.isUnused(Int32($0)) } }
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
        // 3. Rewrite every table, references included: a dropped key had none, so every
        //    reference is between kept keys. (A link's target table always exists.)
        for (id, table) in tables {
            tables[id] = table.compacted(own: remaps[id]!, targets: remaps)
        }
    }
}
