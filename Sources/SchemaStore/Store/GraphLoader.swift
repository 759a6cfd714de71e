@_spi(SchemaStore) import SchemaRuntime

/// Reads a whole graph from a backend: every row (rebuilding the indexes as it goes), then
/// every stored link slot, filling in the inverse slots that are not stored.
struct GraphLoader {
    let layout: StoreLayout
    let backend: any StoreBackend

    func load() throws -> Context {
        var context = Context()
        try load(into: &context, source: .user)
        return context
    }

    /// Loads the graph into `context` (a pack's, beside other packs' entities), marking each
    /// stored entity as coming from `source`.
    func load(into context: inout Context, source: EntitySource) throws {
        for entity in layout.entities {
            try backend.loadRows(entity) { values in
                try backend.reading(entity.entityName) {
                    do {
                        try entity.loadRow(values, into: &context)
                    } catch let violation as UniqueConstraintViolation where source != .user {
                        // A pack loaded beside others: the collision is between two layers.
                        throw LayerCollision(violation: violation, source: source)
                    }
                    if source != .user { entity.setSource(source, of: try entity.loadKey(values[0], into: &context), in: &context) }
                }
            }
        }
        for link in layout.links {
            let owner = link.ownerEntity, target = link.targetEntity
            try backend.loadLinks(link) { ownerID, targetIDs in
                try backend.reading(link.name) {
                    let key = try owner.loadKey(ownerID, into: &context)
                    var targets = try targetIDs.map { try target.loadKey($0, into: &context) }
                    if link.isToMany {
                        // Packs loaded together can each store links of one entity (a pack's
                        // chat listing another pack's user stores that user's `chats` too):
                        // the slot holds them all, earlier packs' first.
                        let earlier = context.linkedKeys(link.owner, link.slot, of: key)
                        if !earlier.isEmpty { targets = Array(earlier) + targets }
                        context.loadLinks(link.owner, link.slot, of: key, to: targets, targetTable: link.target)
                    } else if context.linkedKey(link.owner, link.slot, of: key) < 0 {
                        context.loadLink(link.owner, link.slot, of: key, to: targets[0], targetTable: link.target)
                    } else {
                        return
                    }
                    if let inverse = link.derivedInverse {
                        for targetKey in targets { context.loadLink(link.target, inverse, of: targetKey, to: key, targetTable: link.owner) }
                    }
                }
            }
        }
        // The user's soft-deleted archives (packs have none).
        if source == .user { try Self.loadArchives(layout: layout, backend: backend, into: &context) }
    }

    /// Reads the store's soft-deleted archives into `context`. An archive of an entity the
    /// schema no longer has stays in the file, unread; one that cannot be decoded is an
    /// unreadable row.
    static func loadArchives(layout: StoreLayout, backend: any StoreBackend, into context: inout Context) throws {
        try backend.loadArchives { name, json in
            guard let archive = layout.archivesByName[name] else { return }
            do {
                try archive.load(json, into: &context)
            } catch {
                throw StoreError.unreadableRow(path: backend.location, entity: "Deleted<\(name)>", reason: "\(error)")
            }
        }
    }
}
