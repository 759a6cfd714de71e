import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// Loads a user store over its packs' union: the user's own entities and links, and their
/// edits of pack entities (``OverlayRecord``): rows that shadow the pack's, tombstones that
/// hide them, link slots that replace the pack's.
///
/// Link slots are set with their inverses kept in step (a user message added to a pack chat
/// gets its `chat`), since a pack's derived inverse slots were filled from the pack's links.
struct UserLayerLoader {
    let layout: StoreLayout
    let backend: any StoreBackend
    let layers: PackLayers

    /// Loads the user layer into `context` (a copy of the packs' union). Returns the records
    /// that no longer apply, whose pack is gone or no longer has the entity: their rows and
    /// links are not loaded, and the store deletes them when it can write.
    func load(into context: inout Context) throws -> [OverlayRecord] {
        var valid: [OverlayRecord] = [], stale: [OverlayRecord] = []
        let entityByName = layout.entityByName, linkByName = layout.linkByName
        try backend.loadOverlay { record in
            let entity = record.kind == .links ? linkByName[record.name]?.ownerEntity : entityByName[record.name]
            let applies = entity.flatMap { layers.packEntity($0, id: record.id) }.map { $0.pack == record.pack } ?? false
            if applies { valid.append(record) } else { stale.append(record) }
        }
        let staleRows = Set(stale.filter { $0.kind == .row }.map { RecordKey($0.name, $0.id) })
        let staleOwners = Set(stale.filter { $0.kind == .links }.map { RecordKey($0.name, $0.id) })

        for entity in layout.entities {
            try backend.loadRows(entity) { values in
                guard !staleRows.contains(RecordKey(entity.entityName, values[0])) else { return }
                try backend.reading(entity.entityName) {
                    do {
                        try entity.loadRow(values, into: &context)
                    } catch let violation as UniqueConstraintViolation {
                        throw LayerCollision(violation: violation, source: .user)
                    }
                }
            }
        }
        for record in valid where record.kind == .tombstone {
            let entity = entityByName[record.name]!
            if let key = try entity.key(of: record.id, in: context) { entity.removeLoadedRow(key, in: &context) }
        }
        for link in layout.links {
            var seen = Set<StoredValue>()
            try backend.loadLinks(link) { owner, targets in
                guard !staleOwners.contains(RecordKey(link.name, owner)) else { return }
                seen.insert(owner)
                try setLinks(link, owner: owner, targets: targets, in: &context)
            }
            // An edited slot with no links left: the pack's links are replaced by none.
            for record in valid where record.kind == .links && record.name == link.name && !seen.contains(record.id) {
                try setLinks(link, owner: record.id, targets: [], in: &context)
            }
        }
        try GraphLoader.loadArchives(layout: layout, backend: backend, into: &context)
        return stale
    }

    private func setLinks(_ link: LinkLayout, owner: StoredValue, targets: [StoredValue], in context: inout Context) throws {
        try backend.reading(link.name) {
            let key = try link.ownerEntity.loadKey(owner, into: &context)
            let targetKeys = try targets.map { try link.targetEntity.loadKey($0, into: &context) }
            context.setLinks(link.owner, link.slot, of: key, to: targetKeys, targetTable: link.target, inverse: link.derivedInverse)
        }
    }

    private struct RecordKey: Hashable {
        let name: String
        let id: StoredValue
        init(_ name: String, _ id: StoredValue) {
            self.name = name
            self.id = id
        }
    }
}
