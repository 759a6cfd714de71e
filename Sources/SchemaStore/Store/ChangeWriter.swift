@_spi(SchemaStore) import SchemaRuntime

/// Turns a write's change set into backend writes: rows upserted or deleted, links set,
/// removed and appended. O(changed rows + changed links), whatever the size of the graph.
struct ChangeWriter {
    let layout: StoreLayout
    let context: Context
    let transaction: any StoreTransaction

    /// Call ``checkEntities(_:layout:context:)`` first: rows of other types are skipped here.
    func write(_ changes: ChangeSet) throws {
        for (table, keys) in changes.rows.sorted(by: { order($0.key) < order($1.key) }) {
            guard let entity = layout.persisterByTable[table] else { continue }
            for key in keys {
                if let values = try entity.rowValues(key, in: context) {
                    try transaction.upsertRow(entity, values)
                } else {
                    try transaction.deleteRow(entity, id: entity.idValue(key, in: context))
                }
            }
        }
        for link in layout.links {
            let slot = ChangeSet.Slot(table: link.owner, slot: link.slot)
            if link.isToMany {
                guard let order = changes.toManyOrder[slot], let lists = changes.toMany[slot] else { continue }
                for key in order { try writeList(link, key, lists[key]!) }
            } else if let keys = changes.toOne[slot] {
                for key in keys { try writeLink(link, key) }
            }
        }
    }

    private func writeLink(_ link: LinkLayout, _ key: Int32) throws {
        let owner = ownerID(link, key)
        let target = context.linkedKey(link.owner, link.slot, of: key)
        if target >= 0 {
            try transaction.setLink(link, owner: owner, target: targetID(link, target))
        } else {
            try transaction.removeLinks(link, owner: owner)
        }
    }

    /// A replaced list is written again whole; otherwise removals are deleted and the
    /// appended keys still present are the list's tail (appends only ever go to the end).
    private func writeList(_ link: LinkLayout, _ key: Int32, _ change: ChangeSet.ListChange) throws {
        let owner = ownerID(link, key)
        if change.isReplaced {
            try transaction.removeLinks(link, owner: owner)
            let targets = context.linkedKeys(link.owner, link.slot, of: key)
            try transaction.appendLinks(link, owner: owner, targets: targets.map { targetID(link, $0) })
            return
        }
        for removed in change.removed {
            try transaction.removeLink(link, owner: owner, target: targetID(link, removed))
        }
        let surviving = Set(change.appended).filter { context.links(link.owner, link.slot, of: key, to: $0) }.count
        guard surviving > 0 else { return }
        let tail = context.lastLinkedKeys(link.owner, link.slot, of: key, count: surviving)
        try transaction.appendLinks(link, owner: owner, targets: tail.map { targetID(link, $0) })
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
        let tables = Array(changes.rows.keys) + changes.toOne.keys.map(\.table) + changes.toMany.keys.map(\.table)
        for table in tables where layout.persisterByTable[table] == nil {
            throw StoreError.unknownEntity(name: context.entityName(of: table) ?? "an entity type")
        }
    }
}
