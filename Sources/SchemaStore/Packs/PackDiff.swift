import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// How a store's graph differs from its packs' union, entity by entity, and how to put pack
/// entities back as their pack has them.
///
/// The definitions match what ``ChangeWriter`` records: a pack entity is edited when its row
/// (save time included) or one of its stored link slots differs from the pack's, deleted
/// when it has no row.
struct PackDiff {
    let layout: StoreLayout
    let layers: PackLayers
    let context: Context

    private var base: Context { layers.base }

    /// The keys in the union of the entities of `pack` that `context` edited or deleted, in
    /// pack order. O(the pack's entities of this type + their stored links).
    func edits(_ entity: any AnyEntityPersister, pack: UUID) -> (edited: [Int32], deleted: [Int32]) {
        var edited: [Int32] = [], deleted: [Int32] = []
        let links = layout.links.filter { $0.owner == entity.table }
        for baseKey in entity.rowKeys(in: base) where entity.source(of: baseKey, in: base) == .pack(pack) {
            guard let key = try? entity.key(of: entity.idValue(baseKey, in: base), in: context), entity.hasRow(key, in: context) else {
                deleted.append(baseKey)
                continue
            }
            let sameRow = (try? entity.sameRow(key, in: context, as: baseKey, in: base)) ?? false
            if !sameRow || links.contains(where: { PackLayers.targetIDs($0, of: key, in: context) != PackLayers.targetIDs($0, of: baseKey, in: base) }) {
                edited.append(baseKey)
            }
        }
        return (edited, deleted)
    }

    /// Restores pack entities (by their keys in the union) in `context`, inside a write: rows
    /// first, so that links between restored entities find them, then every relation slot
    /// as the pack has it. A to-many slot keeps the user's own entities it links to, after
    /// the pack's; a relation the pack leaves empty and does not store is left as it is.
    func restore(_ entities: [(any AnyEntityPersister, Int32)], into context: inout Context) throws {
        var keys: [Int32] = []
        for (entity, baseKey) in entities {
            let key = try entity.loadKey(entity.idValue(baseKey, in: base), into: &context)
            try entity.restoreRow(key, in: &context, from: baseKey, in: base)
            // The pack's again, as loading marks it: the lists below keep the user's own
            // entities, and this one is not (on demand, restored here, it had no source).
            entity.setSource(entity.source(of: baseKey, in: base), of: key, in: &context)
            keys.append(key)
        }
        for ((entity, baseKey), key) in zip(entities, keys) {
            for relation in entity.relations {
                guard let target = layout.persisterByTable[relation.target] else { continue }
                let isStored = layout.links.contains { $0.owner == entity.table && $0.slot == relation.slot }
                var targets = base.targetKeys(entity.table, relation.slot, of: baseKey).map { target.idValue($0, in: base) }
                guard isStored || !targets.isEmpty else { continue }
                if isStored, relation.slot.cardinality == .toMany {
                    let packTargets = Set(targets)
                    // The user's own entities it links to, stored: a pack entity the user
                    // deleted has no row (on demand, nor a source: it is hidden), and goes.
                    for current in context.targetKeys(entity.table, relation.slot, of: key)
                    where target.source(of: current, in: context) == .user && target.hasRow(current, in: context) {
                        let id = target.idValue(current, in: context)
                        if !packTargets.contains(id) { targets.append(id) }
                    }
                }
                let targetKeys = try targets.map { try target.loadKey($0, into: &context) }
                context.setLinks(entity.table, relation.slot, of: key, to: targetKeys, targetTable: relation.target, inverse: relation.inverse)
            }
        }
    }
}
