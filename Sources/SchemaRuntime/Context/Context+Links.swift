/// The link engine: keeps both sides of every mutual relation symmetric.
///
/// Everything here works on interned keys, whatever the entity types involved, and journals
/// each slot it writes. A relation lives in a slot of its source table; a mutual relation's
/// inverse lives in a slot of the target table.
extension Context {
    // MARK: Primitive journaled writes
    //
    // Each writes one slot of `table` whose values are keys of `target`, journals it, and
    // keeps the reference counts of both ends in step: this end's through the table box
    // already in hand, the target's through one more lookup. A key whose count drops to zero
    // and that holds no row is forgotten (see `forgetIfUnused`).

    mutating func writeToOne(_ table: ObjectIdentifier, _ column: Int, _ key: Int32, _ value: Int32, target: ObjectIdentifier) {
        let old: Int32
        let remaining: Int32
        let clearsRequired: Bool
        do {
            let storage = storage(table)
            storage.reserveToOne(column, key)
            old = storage.toOne[column][Int(key)]
            guard old != value else { return }
            storage.toOne[column][Int(key)] = value
            // This end's count changes only when the slot goes from empty to set, or back.
            remaining = storage.addReferences(key, (value >= 0 ? 1 : 0) - (old >= 0 ? 1 : 0))
            clearsRequired = value < 0 && storage.isRequiredToOne[column]
        }
        record(.toOne(table: table, column: column, key: key, old: old, target: target))
        if clearsRequired { checkRequiredLinks(table, key, column: column, removed: old) }
        if value >= 0 { storage(target).addReferences(value, 1) }
        if old >= 0 { releaseReference(target, old) }
        if remaining == 0 { forgetIfUnused(table, key) }
    }

    mutating func appendToMany(_ table: ObjectIdentifier, _ column: Int, _ key: Int32, _ value: Int32, target: ObjectIdentifier) {
        do {
            let storage = storage(table)
            storage.reserveToMany(column, key)
            guard !storage.toMany[column][Int(key)].contains(value) else { return }
            storage.toMany[column][Int(key)].appendAssumingAbsent(value)
            storage.addReferences(key, 1)
        }
        record(.appended(table: table, column: column, key: key, value: value, target: target))
        storage(target).addReferences(value, 1)
    }

    mutating func removeFromMany(_ table: ObjectIdentifier, _ column: Int, _ key: Int32, _ value: Int32, target: ObjectIdentifier) {
        let index: Int
        let remaining: Int32
        do {
            let storage = storage(table)
            guard Int(key) < storage.toMany[column].count,
                  let removed = storage.toMany[column][Int(key)].remove(value) else { return }
            index = removed
            remaining = storage.addReferences(key, -1)
            // Inside a transaction the tombstones stay until it ends (see `compactLinkLists`).
            if journal == nil { storage.toMany[column][Int(key)].compactIfSparse() }
        }
        record(.removed(table: table, column: column, key: key, value: value, index: index, target: target))
        releaseReference(target, value)
        if remaining == 0 { forgetIfUnused(table, key) }
    }

    mutating func replaceToMany(_ table: ObjectIdentifier, _ column: Int, _ key: Int32, _ list: LinkList, target: ObjectIdentifier) {
        let old: LinkList
        let remaining: Int32
        do {
            let storage = storage(table)
            storage.reserveToMany(column, key)
            old = storage.toMany[column][Int(key)]
            guard old != list else { return }
            storage.toMany[column][Int(key)] = list
            remaining = storage.addReferences(key, Int32(list.count - old.count))
        }
        record(.replaced(table: table, column: column, key: key, old: old, target: target))
        // One lookup of the target box for the whole list; forgetting (which writes through
        // `storage(_:)` again) waits until the box is no longer held.
        var released: [Int32] = []
        do {
            let targets = storage(target)
            for value in list.keys where !old.contains(value) { targets.addReferences(value, 1) }
            for value in old.keys where !list.contains(value) {
                if targets.addReferences(value, -1) == 0 { released.append(value) }
            }
        }
        for value in released { forgetIfUnused(target, value) }
        if remaining == 0 { forgetIfUnused(table, key) }
    }

    // MARK: Reference counts

    /// Removes one reference from `key` of `table`, forgetting its id if that was the last.
    private mutating func releaseReference(_ table: ObjectIdentifier, _ key: Int32) {
        if storage(table).addReferences(key, -1) == 0 { forgetIfUnused(table, key) }
    }

    /// Adds `delta` to the references of both ends of the link `key` (in `table`) -> `value`
    /// (in `target`), forgetting nothing (rollback restores a consistent state).
    mutating func countLink(_ table: ObjectIdentifier, _ key: Int32, _ target: ObjectIdentifier, _ value: Int32, _ delta: Int32) {
        storage(table).addReferences(key, delta)
        storage(target).addReferences(value, delta)
    }

    /// Counts the links of a to-many slot going from `old` to `new`, forgetting nothing.
    /// O(old + new).
    mutating func countReplacement(_ table: ObjectIdentifier, _ key: Int32, _ target: ObjectIdentifier, from old: LinkList, to new: LinkList) {
        for value in new.keys where !old.contains(value) { countLink(table, key, target, value, 1) }
        for value in old.keys where !new.contains(value) { countLink(table, key, target, value, -1) }
    }

    /// Forgets the id of `key` if it holds no row and nothing links to or from it: the same
    /// keys ``compact()`` drops, so context order is the same with or without compaction.
    @usableFromInline
    mutating func forgetIfUnused(_ table: ObjectIdentifier, _ key: Int32) {
        // A faulting context forgets nothing: a forgotten key could be read again as stale.
        guard faulter == nil, storageIfPresent(table)?.isUnused(key) == true else { return }
        if storage(table).forget(key) { record(.forgot(table: table, key: key)) }
    }

    // MARK: Symmetric link maintenance

    /// Points the to-one `slot` of `key` at `target` (`-1` to clear), updating the inverse.
    ///
    /// When the inverse is to-one and `target` was linked to another source, that source's
    /// link is cleared: a to-one target moves, it is never shared.
    @usableFromInline
    mutating func setToOne(_ source: ObjectIdentifier, _ column: Int, _ key: Int32,
                           to target: Int32, _ targetTable: ObjectIdentifier, inverse: LinkSlot?) {
        faultSlot(source, .toOne(column), key)
        let old = storage(source).toOneLink(column, key)
        guard old != target else { return }
        // Writing on demand: a cleared link's target is read, so that an error about a
        // required relation it breaks can say whether that target is stored.
        if old >= 0, target < 0, inverse == nil { faultEntities(targetTable, [old]) }
        if old >= 0, let inverse {
            faultSlot(targetTable, inverse, old)
            unlinkInverse(targetTable, inverse, old, from: key, source)
        }
        writeToOne(source, column, key, target, target: targetTable)
        if target >= 0, let inverse {
            // The source's own slot, read above, did not link to `target`: a to-many inverse
            // list does not hold the source, so it is appended to unread.
            if !appendsWithoutReading(inverse) { faultSlot(targetTable, inverse, target) }
            linkInverse(targetTable, inverse, target, to: key, back: (source, .toOne(column)))
        }
    }

    /// Sets (or, with `appending`, extends) the to-many `slot` of `key`, updating the inverses.
    /// Replacing is O(old + new), appending O(new) however long the list already is, plus
    /// the inverse updates.
    @usableFromInline
    mutating func setToMany(_ source: ObjectIdentifier, _ column: Int, _ key: Int32,
                            to targets: [Int32], appending: Bool,
                            _ targetTable: ObjectIdentifier, inverse: LinkSlot?) {
        faultSlot(source, .toMany(column), key)
        if let inverse, faulter != nil {
            // Every target joining or leaving the list has its inverse changed: read them at
            // once. A to-many inverse list of a target joining does not hold the source (this
            // list, read whole, did not hold the target): only those leaving are read.
            let old = storage(source).toManyLinks(column, key)
            switch inverse.cardinality {
            case .toOne: faultEntities(targetTable, targets + (appending ? [] : Array(old.keys)))
            case .toMany:
                if !appending {
                    let kept = Set(targets)
                    faultLists(targetTable, inverse, old.keys.filter { !kept.contains($0) })
                }
            }
        }
        if appending {
            // In place: copying a long list to extend it would cost its whole length.
            for target in targets where !(storageIfPresent(source)?.toManyLinks(column, key).contains(target) ?? false) {
                appendToMany(source, column, key, target, target: targetTable)
                if let inverse { linkInverse(targetTable, inverse, target, to: key, back: (source, .toMany(column))) }
            }
            return
        }
        let old = storage(source).toManyLinks(column, key)
        var new = LinkList()
        for target in targets where !new.contains(target) { new.appendAssumingAbsent(target) }
        if let inverse {
            for removed in old.keys where !new.contains(removed) {
                unlinkInverse(targetTable, inverse, removed, from: key, source)
            }
        }
        replaceToMany(source, column, key, new, target: targetTable)
        if let inverse {
            for added in new.keys where !old.contains(added) {
                linkInverse(targetTable, inverse, added, to: key, back: (source, .toMany(column)))
            }
        }
    }

    /// Removes every link of the `slot` of `key`, updating the inverses; returns the old targets.
    @usableFromInline @discardableResult
    mutating func clearLinks(_ source: ObjectIdentifier, _ slot: LinkSlot, _ key: Int32,
                             _ targetTable: ObjectIdentifier, inverse: LinkSlot?) -> [Int32] {
        // Read through a temporary reference only: holding a table box while writing would
        // make it look shared and force a full copy of the table on every write.
        faultSlot(source, slot, key)
        guard storageIfPresent(source) != nil else { return [] }
        switch slot.cardinality {
        case .toOne:
            let old = storageIfPresent(source)!.toOneLink(slot.column, key)
            guard old >= 0 else { return [] }
            setToOne(source, slot.column, key, to: -1, targetTable, inverse: inverse)
            return [old]
        case .toMany:
            let old = Array(storageIfPresent(source)!.toManyLinks(slot.column, key).keys)
            guard !old.isEmpty else { return [] }
            setToMany(source, slot.column, key, to: [], appending: false, targetTable, inverse: inverse)
            return old
        }
    }

    /// Removes `source` (a key of `sourceTable`) from the inverse slot of `target`.
    private mutating func unlinkInverse(_ table: ObjectIdentifier, _ inverse: LinkSlot, _ target: Int32,
                                        from source: Int32, _ sourceTable: ObjectIdentifier) {
        switch inverse.cardinality {
        case .toOne:
            if storage(table).toOneLink(inverse.column, target) == source {
                writeToOne(table, inverse.column, target, -1, target: sourceTable)
            }
        case .toMany:
            removeFromMany(table, inverse.column, target, source, target: sourceTable)
        }
    }

    /// Adds `source` to the inverse slot of `target`. If that slot is to-one and held another
    /// source, that source's forward link (`back`) to `target` is removed first.
    private mutating func linkInverse(_ table: ObjectIdentifier, _ inverse: LinkSlot, _ target: Int32,
                                      to source: Int32, back: (table: ObjectIdentifier, slot: LinkSlot)) {
        switch inverse.cardinality {
        case .toMany:
            appendToMany(table, inverse.column, target, source, target: back.table)
        case .toOne:
            let previous = storage(table).toOneLink(inverse.column, target)
            guard previous != source else { return }
            if previous >= 0 {
                faultSlot(back.table, back.slot, previous)
                switch back.slot.cardinality {
                case .toOne:
                    if storage(back.table).toOneLink(back.slot.column, previous) == target {
                        writeToOne(back.table, back.slot.column, previous, -1, target: table)
                    }
                case .toMany:
                    removeFromMany(back.table, back.slot.column, previous, target, target: table)
                }
            }
            writeToOne(table, inverse.column, target, source, target: back.table)
        }
    }
}
