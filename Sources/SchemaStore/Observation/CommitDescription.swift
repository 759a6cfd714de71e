@_spi(SchemaStore) import SchemaRuntime

/// What one commit did, per entity type and key: each entity's row (inserted, updated,
/// deleted, or neither) and the relations whose links changed. Computed from the commit's
/// ``ChangeSet`` and the graphs before and after it, on keys (no id is type-erased), so a
/// writer can record it in the file's ``CommitLog`` for every commit; ``StoreChanges`` is
/// built from it only when observers ask.
///
/// Rows are compared with `==` (column by column for a type that is not `Equatable`) and
/// links target by target, so a write that stores what was there describes nothing.
/// O(changed rows × fields + changed links), plus the length of each to-many list the write
/// replaced or reordered.
struct CommitDescription: Sendable {
    struct Change {
        var row: RowChange
        /// The slots whose links changed, in the order they were found.
        var relinked: [LinkSlot]
    }

    /// Per table: the keys the commit changed, each once, rows first (in the change set's
    /// order), then keys only relinked.
    private(set) var tables: [ObjectIdentifier: [(key: Int32, change: Change)]] = [:]

    var isEmpty: Bool { tables.isEmpty }

    init(changeSet: ChangeSet, before: Context, after: Context, layout: StoreLayout) throws {
        var positions: [ObjectIdentifier: [Int32: Int]] = [:]
        for (table, keys) in changeSet.rows {
            guard let persister = layout.persisterByTable[table] else { continue }
            var changed: [(key: Int32, change: Change)] = []
            var tablePositions: [Int32: Int] = [:]
            for key in keys {
                let row = try persister.rowChange(key, before: before, after: after)
                guard row != .unchanged else { continue }
                tablePositions[key] = changed.count
                changed.append((key, Change(row: row, relinked: [])))
            }
            guard !changed.isEmpty else { continue }
            tables[table] = changed
            positions[table] = tablePositions
        }
        // The keys of one table whose `slot` changed, noted with one lookup of the table's entries.
        func note(_ table: ObjectIdentifier, _ slot: LinkSlot, _ changedKeys: [Int32]) {
            guard !changedKeys.isEmpty, let persister = layout.persisterByTable[table] else { return }
            var entries = tables.removeValue(forKey: table) ?? []
            var tablePositions = positions.removeValue(forKey: table) ?? [:]
            for key in changedKeys where persister.hasRow(key, in: after) {
                if let position = tablePositions[key] {
                    if !entries[position].change.relinked.contains(slot) { entries[position].change.relinked.append(slot) }
                } else {
                    tablePositions[key] = entries.count
                    entries.append((key, Change(row: .unchanged, relinked: [slot])))
                }
            }
            if !entries.isEmpty { tables[table] = entries }
            positions[table] = tablePositions
        }
        for (slot, keys) in changeSet.toOne {
            note(slot.table, slot.slot, keys.filter { before.linkedKey(slot.table, slot.slot, of: $0) != after.linkedKey(slot.table, slot.slot, of: $0) })
        }
        for (slot, lists) in changeSet.toMany {
            guard let keys = changeSet.toManyOrder[slot] else { continue }
            note(slot.table, slot.slot, keys.filter { key in
                lists[key].map { Self.listChanged($0, slot, key, before: before, after: after) } ?? false
            })
        }
        try mergeKeysOfOneID(before: before, after: after, layout: layout)
    }

    /// An entity deleted and saved again in one write can hold two keys (a resident context
    /// forgets the key of a deleted id, and the save interns the id anew): its entries become
    /// one, on its last key, comparing the row and each relation's targets by id between the
    /// key stored before and the one stored after. O(entries of the tables where it happens).
    private mutating func mergeKeysOfOneID(before: Context, after: Context, layout: StoreLayout) throws {
        for (table, entries) in tables where entries.count > 1 {
            guard let persister = layout.persisterByTable[table] else { continue }
            var positionsByID: [StoredValue: [Int]] = [:]
            for (position, entry) in entries.enumerated() {
                positionsByID[persister.idValue(entry.key, in: after), default: []].append(position)
            }
            guard positionsByID.values.contains(where: { $0.count > 1 }) else { continue }
            var merged = entries
            var dropped = Set<Int>()
            for positions in positionsByID.values where positions.count > 1 {
                let keys = positions.map { entries[$0].key }
                let old = keys.first { persister.hasRow($0, in: before) }
                let new = keys.last { persister.hasRow($0, in: after) }
                let row: RowChange = switch (old, new) {
                case (nil, nil): .unchanged
                case (nil, .some): .inserted
                case (.some, nil): .deleted
                case let (old?, new?): try persister.sameRow(new, in: after, as: old, in: before) ? .unchanged : .updated
                }
                var relinked: [LinkSlot] = []
                if let new {
                    for relation in persister.relations {
                        guard let target = layout.persisterByTable[relation.target] else { continue }
                        func ids(_ key: Int32?, _ context: Context) -> [StoredValue] {
                            guard let key else { return [] }
                            return context.targetKeys(table, relation.slot, of: key).map { target.idValue($0, in: context) }
                        }
                        if ids(old, before) != ids(new, after) { relinked.append(relation.slot) }
                    }
                }
                merged[positions[0]] = (new ?? keys.last!, Change(row: row, relinked: relinked))
                dropped.formUnion(positions.dropFirst())
            }
            let kept = merged.indices.filter { !dropped.contains($0) }.map { merged[$0] }
                .filter { $0.change.row != .unchanged || !$0.change.relinked.isEmpty }
            tables[table] = kept.isEmpty ? nil : kept
        }
    }

    /// Whether a to-many list differs after the write: compared whole when the write replaced
    /// it or removed and appended one target (which moves it to the end), else at the targets
    /// it appended or removed (O(1) each, whatever the list's length).
    private static func listChanged(_ change: ChangeSet.ListChange, _ slot: ChangeSet.Slot, _ key: Int32, before: Context, after: Context) -> Bool {
        if change.isReplaced || change.appended.contains(where: change.removed.contains) {
            return before.linkedKeys(slot.table, slot.slot, of: key) != after.linkedKeys(slot.table, slot.slot, of: key)
        }
        let targets = change.removed.union(change.appended)
        return targets.contains { before.links(slot.table, slot.slot, of: key, to: $0) != after.links(slot.table, slot.slot, of: key, to: $0) }
    }

    /// The changes of one entity type, ids type-erased (relations by name, in schema order).
    func changes(of persister: any AnyEntityPersister, in after: Context) -> AnyEntityChanges? {
        guard let entries = tables[persister.table] else { return nil }
        var changes = AnyEntityChanges()
        for (key, change) in entries {
            switch change.row {
            case .inserted: changes.inserted.append(persister.anyID(key, in: after))
            case .updated: changes.updated.append(persister.anyID(key, in: after))
            case .deleted: changes.deleted.append(persister.anyID(key, in: after))
            case .unchanged: break
            }
            if !change.relinked.isEmpty {
                let names = persister.relations.filter { change.relinked.contains($0.slot) }.map(\.name)
                changes.relinked.append((persister.anyID(key, in: after), names))
            }
        }
        return changes
    }

    /// The commit log's row entries: one per changed entity, in schema order, each with its
    /// change. The text of each kind of change is built once per entity type.
    func logEntries(layout: StoreLayout, after: Context) -> [CommitLog.Entry] {
        var entries: [CommitLog.Entry] = []
        for persister in layout.entities {
            guard let changed = tables[persister.table] else { continue }
            let relations = persister.relations
            let positions = Dictionary(relations.indices.map { (relations[$0].slot, $0) }, uniquingKeysWith: { first, _ in first })
            entries.reserveCapacity(entries.count + changed.count)
            for (key, change) in changed {
                let stored: StoredValue
                if relations.count <= CommitLog.Change.maximumBits {
                    var bits: Int64 = 0
                    for slot in change.relinked { bits |= 1 << Int64(positions[slot]!) }
                    stored = .integer(bits << 2 | Int64(change.row.code))
                } else {
                    stored = CommitLog.Change.stored(change.row, relinked: change.relinked.compactMap { positions[$0] }.sorted(), of: relations)
                }
                entries.append(CommitLog.Entry(kind: .row, name: persister.entityName, id: persister.idValue(key, in: after), change: stored))
            }
        }
        return entries
    }
}

extension RowChange {
    /// A small number per case, as the commit log stores it.
    var code: Int {
        switch self {
        case .inserted: 0
        case .updated: 1
        case .deleted: 2
        case .unchanged: 3
        }
    }

    init?(code: Int) {
        switch code {
        case 0: self = .inserted
        case 1: self = .updated
        case 2: self = .deleted
        case 3: self = .unchanged
        default: return nil
        }
    }
}
