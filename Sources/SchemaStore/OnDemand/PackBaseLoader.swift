@_spi(SchemaStore) import SchemaRuntime

/// The packs' side of a write on demand over packs: the rows and stored link slots the packs
/// themselves hold for what the write changed, read from the packs' files (attached to the
/// writer's connection, ``PackUnion``). With them, ``ChangeWriter`` decides what the user
/// store records (an override, a tombstone, a replaced slot, or nothing once the entity
/// agrees with its pack again) exactly as it does against a resident store's whole
/// ``PackLayers/base``. O(changed rows and slots), whatever the size of the packs.
struct PackBaseLoader {
    let layout: StoreLayout
    let backend: any SnapshotConnection
    let union: PackUnion

    /// The owners, per link table, of pack entities' lists the write only appended to that
    /// the user store keeps already (a replaced slot) and that cannot come to equal their
    /// pack's list (the lengths differ): ``ChangeWriter`` appends to them, so neither they
    /// nor the pack's list need reading. O(such lists × log n).
    func keptListsAppendedTo(_ changes: ChangeSet, in context: Context) throws -> [String: Set<StoredValue>] {
        guard let file = backend as? SQLiteBackend else { return [:] }
        var kept: [String: Set<StoredValue>] = [:]
        for link in layout.links where link.isToMany {
            guard let lists = changes.toMany[ChangeSet.Slot(table: link.owner, slot: link.slot)] else { continue }
            for (key, change) in lists where !change.isReplaced && change.removed.isEmpty && !change.appended.isEmpty {
                let owner = link.ownerEntity.idValue(key, in: context)
                guard let lengths = try file.keptListLengths(link, owner: owner) else { continue }
                let surviving = Set(change.appended).filter { context.links(link.owner, link.slot, of: key, to: $0) }.count
                if lengths.user + surviving != lengths.packs { kept[link.name, default: []].insert(owner) }
            }
        }
        return kept
    }

    /// The pack layers a write with `changes` (made in `context`) compares against; the
    /// packs' lists of the owners in `appendedTo` are not read (``keptListsAppendedTo(_:in:)``).
    func layers(for changes: ChangeSet, in context: Context, appendedTo: [String: Set<StoredValue>] = [:]) throws -> PackLayers {
        var ids: [ObjectIdentifier: Set<StoredValue>] = [:]
        for (table, keys) in changes.rows {
            guard let entity = layout.persisterByTable[table] else { continue }
            ids[table, default: []].formUnion(keys.map { entity.idValue($0, in: context) })
        }
        // The owners of changed stored slots, whose rows tell whether they are a pack's.
        var owners: [String: [StoredValue]] = [:]
        for link in layout.links {
            let slot = ChangeSet.Slot(table: link.owner, slot: link.slot)
            let keys = link.isToMany ? changes.toMany[slot].map { Array($0.keys) } ?? [] : changes.toOne[slot].map(Array.init) ?? []
            guard !keys.isEmpty else { continue }
            let values = keys.map { link.ownerEntity.idValue($0, in: context) }
            let skipped = appendedTo[link.name] ?? []
            owners[link.name] = values.filter { !skipped.contains($0) }
            ids[link.owner, default: []].formUnion(values)
        }
        var base = Context()
        for (index, pack) in union.packs.enumerated() {
            for entity in layout.entities {
                guard let wanted = ids[entity.table], !wanted.isEmpty else { continue }
                try loadRows(entity, ids: Array(wanted), pack: index, source: .pack(pack.manifest.id), into: &base)
            }
            for link in layout.links {
                guard let wanted = owners[link.name] else { continue }
                try loadLinks(link, owners: wanted, pack: index, into: &base)
            }
        }
        return PackLayers(packs: union.packs, base: base)
    }

    /// Reads into the write's `context` the lists of pack entities the write changed without
    /// reading them (appends alone): a pack entity's changed list is written whole
    /// (``ChangeWriter``), so it must hold the stored links before the appended ones.
    func readChangedPackLists(_ changes: ChangeSet, layers: PackLayers, except appendedTo: [String: Set<StoredValue>] = [:], in context: inout Context) {
        for link in layout.links where link.isToMany {
            guard let lists = changes.toMany[ChangeSet.Slot(table: link.owner, slot: link.slot)] else { continue }
            let skipped = appendedTo[link.name] ?? []
            let packOwners = lists.keys.filter { key in
                let id = link.ownerEntity.idValue(key, in: context)
                return !skipped.contains(id) && layers.packEntity(link.ownerEntity, id: id) != nil
            }
            if !packOwners.isEmpty { context.readLists(link.owner, link.slot, packOwners.sorted()) }
        }
    }

    /// The packs' own state of the pack entities `entities` (ids by entity type): their rows,
    /// the stored link slots they own, and the inverse slots derived from links to them, so
    /// that ``PackDiff/restore(_:into:)`` can put them back as their pack has them.
    func restoreBase(_ entities: [(entity: any AnyEntityPersister, ids: [StoredValue])]) throws -> PackLayers {
        var base = Context()
        for (index, pack) in union.packs.enumerated() {
            for (entity, ids) in entities where !ids.isEmpty {
                try loadRows(entity, ids: ids, pack: index, source: .pack(pack.manifest.id), into: &base)
                for link in layout.links where link.owner == entity.table { try loadLinks(link, owners: ids, pack: index, into: &base) }
                for link in layout.links where link.target == entity.table && link.derivedInverse != nil {
                    try loadInverse(link, targets: ids, pack: index, into: &base)
                }
            }
        }
        return PackLayers(packs: union.packs, base: base)
    }

    /// The to-one inverse slots of `targets` that the pack's links of `link` imply.
    private func loadInverse(_ link: LinkLayout, targets: [StoredValue], pack: Int, into base: inout Context) throws {
        guard let inverse = link.derivedInverse else { return }
        for batch in SubgraphLoader.batches(targets) {
            var pairs: [(owner: StoredValue, target: StoredValue)] = []
            try backend.rows(SQLSelect(output: .columns([.column("owner"), .column("target")]), table: PackUnion.packTable(link.name, pack: pack),
                                       filter: .oneOf(.column("target"), batch))) { pairs.append(($0[0], $0[1])) }
            try backend.reading(link.name) {
                let owners = try link.ownerEntity.loadKeys(pairs.map(\.owner), into: &base)
                let targetKeys = try link.targetEntity.loadKeys(pairs.map(\.target), into: &base)
                for (owner, target) in zip(owners, targetKeys) where base.linkedKey(link.target, inverse, of: target) < 0 {
                    base.loadLink(link.target, inverse, of: target, to: owner, targetTable: link.owner)
                }
            }
        }
    }

    /// Reads into the write's `context` what restoring `keys` (of `entity`) decides by: their
    /// to-many lists, and the rows those lists link to, whose sources tell which links are
    /// the user's own (kept). Rows and to-one links are read by the restore's own saves.
    static func readForRestore(_ entity: any AnyEntityPersister, keys: [Int32], layout: StoreLayout, in context: inout Context) {
        for relation in entity.relations where relation.slot.cardinality == .toMany {
            context.readLists(entity.table, relation.slot, keys)
            var targets: [Int32] = []
            for key in keys { targets += context.targetKeys(entity.table, relation.slot, of: key) }
            context.readEntities(relation.target, targets)
        }
    }

    private func loadRows(_ entity: any AnyEntityPersister, ids: [StoredValue], pack: Int, source: EntitySource, into base: inout Context) throws {
        for batch in SubgraphLoader.batches(ids) {
            var rows: [[StoredValue]] = []
            try backend.rows(SQLSelect(output: .columns(entity.columns.map { .column($0.name) }), table: PackUnion.packTable(entity.tableName, pack: pack),
                                       filter: .oneOf(.column(entity.columns[0].name), batch))) { rows.append($0) }
            try backend.reading(entity.entityName) {
                for key in try entity.loadRows(rows, into: &base) { entity.setSource(source, of: key, in: &base) }
            }
        }
    }

    /// The pack's links of `owners`, after those of earlier packs (as loading merges them).
    private func loadLinks(_ link: LinkLayout, owners: [StoredValue], pack: Int, into base: inout Context) throws {
        var order = [SQLOrderTerm(expression: .column("owner"), descending: false)]
        if link.isToMany { order.append(SQLOrderTerm(expression: .column("position"), descending: false)) }
        for batch in SubgraphLoader.batches(owners) {
            var pairs: [(owner: StoredValue, target: StoredValue)] = []
            try backend.rows(SQLSelect(output: .columns([.column("owner"), .column("target")]), table: PackUnion.packTable(link.name, pack: pack),
                                       filter: .oneOf(.column("owner"), batch), order: order)) { pairs.append(($0[0], $0[1])) }
            try backend.reading(link.name) {
                let ownerKeys = try link.ownerEntity.loadKeys(pairs.map(\.owner), into: &base)
                let targetKeys = try link.targetEntity.loadKeys(pairs.map(\.target), into: &base)
                for run in LinkLookup.runs(ownerKeys) {
                    let owner = ownerKeys[run.lowerBound]
                    if link.isToMany {
                        let earlier = base.linkedKeys(link.owner, link.slot, of: owner)
                        base.loadLinks(link.owner, link.slot, of: owner, to: Array(earlier) + targetKeys[run], targetTable: link.target)
                    } else if base.linkedKey(link.owner, link.slot, of: owner) < 0 {
                        base.loadLink(link.owner, link.slot, of: owner, to: targetKeys[run.lowerBound], targetTable: link.target)
                    }
                }
            }
        }
    }
}
