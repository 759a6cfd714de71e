import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// Turns a write's change set into backend writes: rows upserted or deleted, links set,
/// removed and appended. O(changed rows + changed links), whatever the size of the graph.
///
/// With packs (`layers`), an entity or link slot a pack provides is never written to the
/// pack: the user store records how the unified view differs from the pack there (an
/// override row, a tombstone, a replacement slot; ``OverlayRecord``), or removes its record
/// when they agree again. So reverting an edit is writing the pack's values back.
struct ChangeWriter {
    let layout: StoreLayout
    let context: Context
    let transaction: any StoreTransaction
    var layers: PackLayers?
    /// Which entities had no row before the write, where that is known: a new row needs no
    /// conflict clause (a server then streams many by `COPY`), and its postings need no
    /// removing (a statement per write, and one per thousand entities of a big one). Nil:
    /// every entity written may have a row and postings.
    var newRows: NewRows? = nil
    /// Whether the write's context kept the key of an id it deleted (a context reading on
    /// demand forgets no key): an entity deleted and saved again then has one key, whose
    /// row is deleted and inserted again, so that it moves to the end of storage order as
    /// an entity does that gets a new key.
    var keepsDeletedKeys = false

    /// Tells the entities that had no row before a write.
    struct NewRows {
        let isNew: (any AnyEntityPersister, Int32) -> Bool

        /// Those without a row in `before`, a graph that holds every stored row (a resident store's).
        static func absent(from before: Context) -> NewRows {
            NewRows { entity, key in !entity.hasRow(key, in: before) }
        }
    }

    /// Call ``checkEntities(_:layout:context:)`` first: rows of other types are skipped here.
    func write(_ changes: ChangeSet) throws {
        var fullTextPresent: Set<String>?
        var fullTextTotals: [String: (index: FullTextLayout, documents: Int, length: Int)] = [:]
        for (table, keys) in changes.rows.sorted(by: { order($0.key) < order($1.key) }) {
            if let archive = layout.archives[table] {
                for key in keys { try writeArchive(archive, key) }
                continue
            }
            guard let entity = layout.persisterByTable[table] else { continue }
            for key in inWriteOrder(keys, of: entity) {
                if let layers, let (pack, baseKey) = layers.packEntity(entity, id: entity.idValue(key, in: context)) {
                    // The user store's postings follow its own row: an override's text, or none.
                    let overridden = try writePackRow(entity, key, pack: pack, baseKey: baseKey, base: layers.base)
                    try updateFullText(entity, key, inUserStore: overridden, present: &fullTextPresent, totals: &fullTextTotals)
                } else if let values = try entity.rowValues(key, in: context) {
                    let isNew = isNew(key, of: entity)
                    if keepsDeletedKeys, !isNew, changes.removedRows[table]?.contains(key) == true {
                        // Deleted and saved again under one key: stored anew, last in storage
                        // order, as where the id gets a new key (a resident store's).
                        try transaction.deleteRow(entity, id: entity.idValue(key, in: context))
                        try transaction.upsertRow(entity, values, isNew: true)
                    } else {
                        try transaction.upsertRow(entity, values, isNew: isNew)
                    }
                    try updateFullText(entity, key, isNew: isNew, present: &fullTextPresent, totals: &fullTextTotals)
                } else {
                    try transaction.deleteRow(entity, id: entity.idValue(key, in: context))
                    try updateFullText(entity, key, present: &fullTextPresent, totals: &fullTextTotals)
                }
            }
        }
        for (_, total) in fullTextTotals.sorted(by: { $0.key < $1.key }) {
            try transaction.addToFullTextTotals(total.index, documents: total.documents, length: total.length)
        }
        for link in layout.links {
            let slot = ChangeSet.Slot(table: link.owner, slot: link.slot)
            if link.isToMany {
                guard let order = changes.toManyOrder[slot], let lists = changes.toMany[slot] else { continue }
                // The replaced lists of user entities lose their old links first, one after
                // another (a server database merges such deletes into one statement); each
                // owner's links are its own, so this order writes the same rows.
                var cleared = Set<Int32>()
                for key in order where lists[key]!.isReplaced && !isPackOwner(link, key) {
                    try transaction.removeLinks(link, owner: ownerID(link, key))
                    cleared.insert(key)
                }
                for key in order where !(try writePackSlot(link, key, change: lists[key])) { try writeList(link, key, lists[key]!, cleared: cleared.contains(key)) }
            } else if let keys = changes.toOne[slot] {
                for key in keys where !(try writePackSlot(link, key)) { try writeLink(link, key) }
            }
        }
    }

    /// Whether the entity under `key` had no row before the write; false when that is not
    /// known (``newRows``). Keys are stable within a write: an id deleted and saved again
    /// there gets a new key, after its old one.
    private func isNew(_ key: Int32, of entity: any AnyEntityPersister) -> Bool {
        newRows?.isNew(entity, key) ?? false
    }

    /// A table's changed rows in the order they are written: those of entities that had a
    /// row before the write (updated or deleted) first, then the new ones, each in the
    /// order of their first change. New rows then go together (one statement or `COPY` for
    /// many, ``StoreTransaction/upsertRow(_:_:isNew:)``) rather than in turns with updates,
    /// and a deleted id saved again is deleted before it is inserted. Rows of one table
    /// never depend on each other's order otherwise: a new row's storage order is its place
    /// among the new ones.
    private func inWriteOrder(_ keys: ChangeSet.Keys, of entity: any AnyEntityPersister) -> [Int32] {
        guard newRows != nil else { return keys.ordered }
        let new = keys.ordered.filter { isNew($0, of: entity) }
        guard !new.isEmpty, new.count < keys.ordered.count else { return keys.ordered }
        return keys.ordered.filter { !isNew($0, of: entity) } + new
    }

    /// The full-text tables on-demand readers use, where the file has them (`present`, read
    /// once per write), follow the row under `key` (written or removed); their totals change
    /// once per write, from `totals`.
    private func updateFullText(_ entity: any AnyEntityPersister, _ key: Int32, inUserStore: Bool = true, isNew: Bool = false, present: inout Set<String>?,
                                totals: inout [String: (index: FullTextLayout, documents: Int, length: Int)]) throws {
        guard !entity.fullTextIndexes.isEmpty else { return }
        if present == nil { present = try transaction.fullTextIndexesPresent(layout) }
        let texts = inUserStore ? entity.indexedTexts(key, in: context) : nil
        let id = entity.idValue(key, in: context)
        for (position, index) in entity.fullTextIndexes.enumerated() where present!.contains(index.termsTable) {
            let change = try transaction.updateFullText(index, id: id, text: texts?[position], isNew: isNew)
            let sum = totals[index.termsTable] ?? (index, 0, 0)
            totals[index.termsTable] = (index, sum.documents + change.documents, sum.length + change.length)
        }
    }

    /// An archive (`Deleted<Entity>`): its record, or none once it is restored or removed.
    private func writeArchive(_ archive: any AnyArchivePersister, _ key: Int32) throws {
        let id = archive.idValue(key, in: context)
        if let json = try archive.json(key, in: context) {
            try transaction.upsertArchive(name: archive.entityName, id: id, json: json)
        } else {
            try transaction.removeArchive(name: archive.entityName, id: id)
        }
    }

    /// A pack entity's row: no record when it equals the pack's, else an override row or a
    /// tombstone. Returns whether the user store keeps a row for it (an override).
    private func writePackRow(_ entity: any AnyEntityPersister, _ key: Int32, pack: UUID, baseKey: Int32, base: Context) throws -> Bool {
        let id = entity.idValue(key, in: context)
        if !entity.hasRow(key, in: context) {
            try transaction.deleteRow(entity, id: id)
            try transaction.removeOverlay(.row, name: entity.entityName, id: id)
            try transaction.addOverlay(OverlayRecord(kind: .tombstone, name: entity.entityName, id: id, pack: pack))
            return false
        } else if try entity.sameRow(key, in: context, as: baseKey, in: base) {
            try transaction.deleteRow(entity, id: id)
            try transaction.removeOverlay(.row, name: entity.entityName, id: id)
            try transaction.removeOverlay(.tombstone, name: entity.entityName, id: id)
            return false
        } else {
            try transaction.upsertRow(entity, try entity.rowValues(key, in: context)!, isNew: false)
            try transaction.addOverlay(OverlayRecord(kind: .row, name: entity.entityName, id: id, pack: pack))
            try transaction.removeOverlay(.tombstone, name: entity.entityName, id: id)
            return true
        }
    }

    /// A link slot of a pack entity: kept whole in the user store while it differs from the
    /// pack's, no record once it agrees. Written whole (O(list)), except a list the user
    /// store keeps already that the write only appended to: its tail is appended. Returns
    /// false for a slot of a user entity, which is written as usual.
    private func writePackSlot(_ link: LinkLayout, _ key: Int32, change: ChangeSet.ListChange? = nil) throws -> Bool {
        guard let layers else { return false }
        let owner = ownerID(link, key)
        guard let (pack, baseKey) = layers.packEntity(link.ownerEntity, id: owner) else { return false }
        let targets = PackLayers.targetIDs(link, of: key, in: context)
        let packTargets = PackLayers.targetIDs(link, of: baseKey, in: layers.base)
        if let change, !change.isReplaced, change.removed.isEmpty, targets != packTargets,
           try transaction.hasOverlay(.links, name: link.name, id: owner) {
            try writeList(link, key, change, cleared: false)
            return true
        }
        try transaction.removeLinks(link, owner: owner)
        if targets == packTargets {
            try transaction.removeOverlay(.links, name: link.name, id: owner)
        } else {
            if link.isToMany {
                try transaction.appendLinks(link, owner: owner, targets: targets, afterRemovingAll: true)
            } else if let target = targets.first {
                try transaction.setLink(link, owner: owner, target: target, isNew: true)
            }
            try transaction.addOverlay(OverlayRecord(kind: .links, name: link.name, id: owner, pack: pack))
        }
        return true
    }

    /// Marks the pack entities the write stored under new keys (deleted, then saved again)
    /// as their pack's, as loading the store would.
    static func markPackSources(_ changes: ChangeSet, layout: StoreLayout, layers: PackLayers, in context: inout Context) {
        for (table, keys) in changes.rows {
            guard let entity = layout.persisterByTable[table] else { continue }
            for key in keys where entity.source(of: key, in: context) == .user {
                if let (pack, _) = layers.packEntity(entity, id: entity.idValue(key, in: context)) {
                    entity.setSource(.pack(pack), of: key, in: &context)
                }
            }
        }
    }

    private func writeLink(_ link: LinkLayout, _ key: Int32) throws {
        let owner = ownerID(link, key)
        let target = context.linkedKey(link.owner, link.slot, of: key)
        if target >= 0 {
            try transaction.setLink(link, owner: owner, target: targetID(link, target), isNew: isNew(key, of: link.ownerEntity))
        } else {
            try transaction.removeLinks(link, owner: owner)
        }
    }

    /// A replaced list is written again whole; otherwise removals are deleted and the
    /// appended keys still present are the list's tail (appends only ever go to the end).
    private func writeList(_ link: LinkLayout, _ key: Int32, _ change: ChangeSet.ListChange, cleared: Bool) throws {
        let owner = ownerID(link, key)
        if change.isReplaced {
            if !cleared { try transaction.removeLinks(link, owner: owner) }
            let targets = context.linkedKeys(link.owner, link.slot, of: key)
            try transaction.appendLinks(link, owner: owner, targets: targets.map { targetID(link, $0) }, afterRemovingAll: true)
            return
        }
        for removed in change.removed {
            try transaction.removeLink(link, owner: owner, target: targetID(link, removed))
        }
        let surviving = Set(change.appended).filter { context.links(link.owner, link.slot, of: key, to: $0) }.count
        guard surviving > 0 else { return }
        let tail = context.lastLinkedKeys(link.owner, link.slot, of: key, count: surviving)
        try transaction.appendLinks(link, owner: owner, targets: tail.map { targetID(link, $0) }, afterRemovingAll: false)
    }

    /// Whether `key` is a pack entity, whose slots ``writePackSlot(_:_:)`` writes.
    private func isPackOwner(_ link: LinkLayout, _ key: Int32) -> Bool {
        guard let layers else { return false }
        return layers.packEntity(link.ownerEntity, id: ownerID(link, key)) != nil
    }

    private func ownerID(_ link: LinkLayout, _ key: Int32) -> StoredValue {
        link.ownerEntity.idValue(key, in: context)
    }

    private func targetID(_ link: LinkLayout, _ key: Int32) -> StoredValue {
        link.targetEntity.idValue(key, in: context)
    }

    /// Schema order, so statements run in a deterministic order.
    private func order(_ table: ObjectIdentifier) -> Int {
        layout.entities.firstIndex { $0.table == table } ?? Int.max
    }

    /// Rows or links of a type outside the schema would be lost silently: refuse the write.
    static func checkEntities(_ changes: ChangeSet, layout: StoreLayout, context: Context) throws {
        // Archives have rows only; they are not entities of the schema but are kept.
        let tables = changes.rows.keys.filter { layout.archives[$0] == nil } + changes.toOne.keys.map(\.table) + changes.toMany.keys.map(\.table)
        for table in tables where layout.persisterByTable[table] == nil {
            throw StoreError.unknownEntity(name: context.entityName(of: table) ?? "an entity type")
        }
    }
}
