import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// A store over content packs (docs/Packs.md): install and remove packs at runtime, see what
/// the user changed of a pack, and revert it.
extension Store {
    /// The installed packs, in installation order (empty without a packs directory).
    public var packs: [Pack] {
        stateLock.withLock { layers?.packs ?? [] }
    }

    /// Installs the pack at `url` (or updates the installed one with its id) and shows its
    /// entities at once: one atomic change, which observers receive as a commit. The checks
    /// and policies are ``PackLibrary/install(from:force:userStore:)``'s; besides, the new
    /// union must load (no unique-index collision between the pack and the other data). If
    /// anything throws, the packs, the files and the graph are unchanged.
    @discardableResult
    public func installPack(from url: URL, force: Bool = false) throws -> PackLibrary.InstallOutcome {
        guard let library else { throw PackError.noPacks }
        let layout = self.layout, backend = self.backend
        return try exclusively {
            var loaded: (layers: PackLayers, graph: UnifiedGraph)?
            let outcome = try library.install(from: url, force: force, userStore: self) { packs in
                do {
                    let layers = try PackLayers.load(packs, layout: layout)
                    loaded = (layers, try Self.loadUnified(layers, layout: layout, backend: backend))
                } catch let collision as LayerCollision {
                    throw Self.installFailure(collision, installing: try Pack.open(at: url).manifest.id, packs: packs)
                }
            }
            // The staged folder was moved into place: name the installed one.
            let installed = try library.installed
            replaceLayers(PackLayers(packs: installed, base: loaded!.layers.base), graph: loaded!.graph)
            return outcome
        }
    }

    /// Uninstalls the pack with `id`: its entities disappear, with the user's edits of them,
    /// in one atomic change observers receive as a commit. The user's own entities stay;
    /// their links to the pack's entities remain, to ids no longer stored (they resolve again
    /// if the pack is installed again).
    public func removePack(id: UUID) throws {
        guard let library else { throw PackError.noPacks }
        try exclusively {
            let installed: [Pack] = stateLock.withLock { self.layers?.packs ?? [] }
            guard installed.contains(where: { $0.manifest.id == id }) else { throw PackError.notInstalled(id: id) }
            let (remaining, graph) = try Self.readingLayers(path: backend?.location) {
                let remaining = try PackLayers.load(installed.filter { $0.manifest.id != id }, layout: layout)
                return (remaining, try Self.loadUnified(remaining, layout: layout, backend: backend))
            }
            try library.remove(id: id)
            replaceLayers(remaining, graph: graph)
        }
    }

    /// What the user changed of the pack `pack` among entities of `type`. O(the pack's
    /// entities of `type` + their links).
    public func edits<Entity: PersistentEntity>(of type: Entity.Type, inPack pack: UUID) -> PackEdits<Entity> {
        let (context, layers) = stateLock.withLock { (current, self.layers) }
        guard let layers, let entity = layout.persisterByTable[ObjectIdentifier(type)] else { return PackEdits(edited: [], deleted: []) }
        let diff = PackDiff(layout: layout, layers: layers, context: context)
        let (edited, deleted) = diff.edits(entity, pack: pack)
        return PackEdits(edited: edited.map { entity.anyID($0, in: layers.base) as! Entity.ID },
                         deleted: deleted.map { entity.anyID($0, in: layers.base) as! Entity.ID })
    }

    /// Puts the pack's version of the entity with `id` back: its fields, save time and links
    /// as the pack has them, removing the user's override or tombstone. The user's own
    /// entities stay in its to-many lists (after the pack's); lists of other entities it
    /// rejoins get it at their end (revert them too, or use ``revertAll(inPack:)``). A write:
    /// it throws, changing nothing, where a save would (a unique-index collision, a required
    /// link it would break).
    public func revertToPack<Entity: PersistentEntity>(_ type: Entity.Type, id: Entity.ID) throws {
        guard stateLock.withLock({ layers }) != nil else { throw PackError.noPacks }
        try write { context in
            let layers = stateLock.withLock { self.layers! }
            let entity = layout.persisterByTable[ObjectIdentifier(type)]!
            guard let (_, baseKey) = layers.packEntity(entity, id: id.storedValue) else {
                throw PackError.notAPackEntity(entity: Entity.entityName, id: "\(id)")
            }
            try PackDiff(layout: layout, layers: layers, context: context).restore([(entity, baseKey)], into: &context)
        }
    }

    /// Puts every entity of the pack `pack` back as the pack has it (``revertToPack(_:id:)``
    /// for each edited or deleted one, in one write).
    public func revertAll(inPack pack: UUID) throws {
        guard stateLock.withLock({ layers?.packs.contains { $0.manifest.id == pack } }) == true else {
            throw stateLock.withLock({ layers }) == nil ? PackError.noPacks : PackError.notInstalled(id: pack)
        }
        try write { context in
            let layers = stateLock.withLock { self.layers! }
            let diff = PackDiff(layout: layout, layers: layers, context: context)
            var keys: [(any AnyEntityPersister, Int32)] = []
            for entity in layout.entities {
                let (edited, deleted) = diff.edits(entity, pack: pack)
                keys += (deleted + edited).map { (entity, $0) }
            }
            try diff.restore(keys, into: &context)
        }
    }

    // MARK: Loading

    /// A store's graph over packs, and the records of edits that no longer apply.
    /// The install error for a unique-index collision between the layers, naming the pack's
    /// entity first.
    static func installFailure(_ collision: LayerCollision, installing pack: UUID, packs: [Pack]) -> PackError {
        let violation = collision.violation
        func name(_ source: EntitySource) -> String {
            guard case .pack(let id) = source else { return "the user store" }
            let title = packs.first { $0.manifest.id == id }.map { " (\($0.manifest.title))" } ?? ""
            return "pack \(id)\(title)"
        }
        // The entity loaded over the other is the installed pack's unless it is the user's, or
        // another pack's loaded after it: then the installed pack's is the existing one.
        let newIsInstalled = collision.source == .pack(pack)
        let (packEntity, otherEntity) = newIsInstalled ? (violation.newID, violation.existingID) : (violation.existingID, violation.newID)
        let other: String
        if newIsInstalled {
            // The existing entity came from a pack loaded earlier.
            let earlier = packs.prefix { $0.manifest.id != pack }.map { "pack \($0.manifest.id) (\($0.manifest.title))" }
            other = earlier.count == 1 ? earlier[0] : "an installed pack"
        } else {
            other = name(collision.source)
        }
        return .uniqueCollision(pack: pack, entity: violation.entityName, index: violation.indexName,
                                packEntity: packEntity, other: other, otherEntity: otherEntity)
    }

    /// Runs `body`, which loads pack layers, reporting a unique-index collision between
    /// layers (a damaged file: installs refuse them) as an unreadable row of the store.
    static func readingLayers<Result>(path: String?, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let collision as LayerCollision {
            throw StoreError.unreadableRow(path: path ?? "memory", entity: collision.violation.entityName,
                                           reason: "\(collision.violation) (between the user store and a pack)")
        }
    }

    struct UnifiedGraph {
        var context: Context
        var stale: [OverlayRecord]
    }

    /// The graph of a store over packs: the packs' union with the user layer loaded over it.
    static func loadUnified(_ layers: PackLayers, layout: StoreLayout, backend: (any StoreBackend)?) throws -> UnifiedGraph {
        var context = layers.base
        guard let backend else { return UnifiedGraph(context: context, stale: []) }
        let stale = try backend.readTransaction { try UserLayerLoader(layout: layout, backend: backend, layers: layers).load(into: &context) }
        return UnifiedGraph(context: context, stale: stale)
    }

    /// Deletes records of edits whose pack entity is gone (removed, or no longer in its
    /// pack's new version), with the rows and links they kept. They are not loaded either
    /// way: a failure here only postpones the cleanup to the next open.
    static func deleteStale(_ records: [OverlayRecord], layout: StoreLayout, backend: (any StoreBackend)?) {
        guard let backend, !records.isEmpty else { return }
        try? backend.transaction { transaction in try deleteStale(records, layout: layout, transaction: transaction) }
    }

    private static func deleteStale(_ records: [OverlayRecord], layout: StoreLayout, transaction: any StoreTransaction) throws {
        for record in records {
            switch record.kind {
            case .row:
                if let entity = layout.entityByName[record.name] { try transaction.deleteRow(entity, id: record.id) }
            case .links:
                if let link = layout.linkByName[record.name] { try transaction.removeLinks(link, owner: record.id) }
            case .tombstone:
                break
            }
            try transaction.removeOverlay(record.kind, name: record.name, id: record.id)
        }
    }

    /// Makes `context` current with `layers`, and tells observers: every entity whose row
    /// or links differ between the graphs, compared by id (the new graph was loaded afresh,
    /// so keys differ); every live query runs again.
    private func replaceLayers(_ layers: PackLayers, graph: UnifiedGraph) {
        Self.deleteStale(graph.stale, layout: layout, backend: backend)
        let before = self.context
        stateLock.withLock {
            current = graph.context
            self.layers = layers
        }
        observers.deliverReload(before: before, after: graph.context, layout: layout)
    }
}
