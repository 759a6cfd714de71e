import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// A store over content packs (docs/Packs.md): install and remove packs at runtime, see what
/// the user changed of a pack, and revert it.
extension Store {
    /// The most packs a store reads on demand (SQLite attaches at most this many files to a
    /// connection; 10 unless it was built otherwise). Over more, a store opens resident by
    /// default, and `residency: .onDemand` or installing one more on demand throws
    /// ``PackError/tooManyPacksOnDemand(count:limit:)``.
    public static var maximumPacksOnDemand: Int { SQLiteBackend.attachLimit }

    /// The installed packs, in installation order (empty without a packs directory).
    public var packs: [Pack] {
        stateLock.withLock { layers?.packs } ?? unionPacks?.union.packs ?? []
    }

    /// Installs the pack at `url` (or updates the installed one with its id) and shows its
    /// entities at once: one atomic change, which observers receive as a commit. The checks
    /// and policies are ``PackLibrary/install(from:force:userStore:)``'s; besides, the new
    /// union must load (no unique-index collision between the pack and the other data). If
    /// anything throws, the packs, the files and the graph are unchanged.
    @discardableResult
    public func installPack(from url: URL, force: Bool = false) throws -> PackLibrary.InstallOutcome {
        guard let library else { throw PackError.noPacks }
        if readsOnDemand { return try installPackOnDemand(from: url, force: force, library: library) }
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
        if readsOnDemand { return try removePackOnDemand(id: id, library: library) }
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
        if readsOnDemand { return onDemandEdits(of: type, inPack: pack) }
        let (context, layers) = stateLock.withLock { (current, self.layers) }
        guard let layers, let entity = layout.persisterByTable[ObjectIdentifier(type)] else { return PackEdits(edited: [], deleted: []) }
        let diff = PackDiff(layout: layout, layers: layers, context: context)
        let (edited, deleted) = diff.edits(entity, pack: pack)
        return PackEdits(edited: edited.map { entity.anyID($0, in: layers.base) as! Entity.ID },
                         deleted: deleted.map { entity.anyID($0, in: layers.base) as! Entity.ID })
    }

    /// ``edits(of:inPack:)`` on demand: the edit records, read in SQL on the current snapshot.
    private func onDemandEdits<Entity: PersistentEntity>(of type: Entity.Type, inPack pack: UUID) -> PackEdits<Entity> {
        guard let onDemand, let index = packs.firstIndex(where: { $0.manifest.id == pack }),
              let entity = layout.persisterByTable[ObjectIdentifier(type)] else { return PackEdits(edited: [], deleted: []) }
        do {
            let (edited, deleted) = try onDemand.currentSnapshot().withConnection { connection in
                try (connection as? SQLiteBackend)?.packEdits(entity, pack: index) ?? ([], [])
            }
            var scratch = Context()
            func ids(_ values: [StoredValue]) throws -> [Entity.ID] {
                try entity.loadKeys(values, into: &scratch).map { entity.anyID($0, in: scratch) as! Entity.ID }
            }
            return PackEdits(edited: try ids(edited), deleted: try ids(deleted))
        } catch {
            // As a query on a snapshot that cannot be read: never a wrong answer.
            preconditionFailure("SchemaStore: reading the edits of pack \(pack) failed: \(error)")
        }
    }

    /// Puts the pack's version of the entity with `id` back: its fields, save time and links
    /// as the pack has them, removing the user's override or tombstone. The user's own
    /// entities stay in its to-many lists (after the pack's); lists of other entities it
    /// rejoins get it at their end (revert them too, or use ``revertAll(inPack:)``). A write:
    /// it throws, changing nothing, where a save would (a unique-index collision, a required
    /// link it would break).
    public func revertToPack<Entity: PersistentEntity>(_ type: Entity.Type, id: Entity.ID) throws {
        guard library != nil else { throw PackError.noPacks }
        let entity = layout.persisterByTable[ObjectIdentifier(type)]!
        try write { context in
            let layers: PackLayers
            if readsOnDemand {
                // The pack's own state of this entity, read from its file.
                layers = try packBaseLoader().restoreBase([(entity, [id.storedValue])])
            } else {
                layers = stateLock.withLock { self.layers! }
            }
            guard let (_, baseKey) = layers.packEntity(entity, id: id.storedValue) else {
                throw PackError.notAPackEntity(entity: Entity.entityName, id: "\(id)")
            }
            if readsOnDemand {
                PackBaseLoader.readForRestore(entity, keys: [try entity.loadKey(id.storedValue, into: &context)], layout: layout, in: &context)
            }
            try PackDiff(layout: layout, layers: layers, context: context).restore([(entity, baseKey)], into: &context)
        }
    }

    /// Puts every entity of the pack `pack` back as the pack has it (``revertToPack(_:id:)``
    /// for each edited or deleted one, in one write).
    public func revertAll(inPack pack: UUID) throws {
        guard library != nil else { throw PackError.noPacks }
        guard packs.contains(where: { $0.manifest.id == pack }) else { throw PackError.notInstalled(id: pack) }
        try write { context in
            guard readsOnDemand else {
                let layers = stateLock.withLock { self.layers! }
                let diff = PackDiff(layout: layout, layers: layers, context: context)
                var keys: [(any AnyEntityPersister, Int32)] = []
                for entity in layout.entities {
                    let (edited, deleted) = diff.edits(entity, pack: pack)
                    keys += (deleted + edited).map { (entity, $0) }
                }
                try diff.restore(keys, into: &context)
                return
            }
            // On demand: what the edit records name, and the pack's own state of it.
            let loader = try packBaseLoader()
            // The packs the writer shows now (an install may have come since the check above).
            guard let file = loader.backend as? SQLiteBackend,
                  let index = loader.union.packs.firstIndex(where: { $0.manifest.id == pack }) else { throw PackError.notInstalled(id: pack) }
            var edits: [(entity: any AnyEntityPersister, ids: [StoredValue])] = []
            for entity in layout.entities {
                let (edited, deleted) = try file.packEdits(entity, pack: index)
                edits.append((entity, deleted + edited))
            }
            let layers = try loader.restoreBase(edits)
            var keys: [(any AnyEntityPersister, Int32)] = []
            for (entity, ids) in edits where !ids.isEmpty {
                PackBaseLoader.readForRestore(entity, keys: try entity.loadKeys(ids, into: &context), layout: layout, in: &context)
                keys += ids.compactMap { id in layers.packEntity(entity, id: id).map { (entity, $0.key) } }
            }
            try PackDiff(layout: layout, layers: layers, context: context).restore(keys, into: &context)
        }
    }

    /// Reads the packs' own rows and links for a write on demand, through the writer's
    /// connection (which shows the packs, ``PackUnion``).
    private func packBaseLoader() throws -> PackBaseLoader {
        guard let file = backend as? SQLiteBackend, let union = file.packUnion else { throw PackError.noPacks }
        return PackBaseLoader(layout: layout, backend: file, union: union)
    }

    // MARK: On demand

    /// ``installPack(from:force:)`` on demand: the library installs the pack, after checking
    /// on a connection showing the new union that no unique key of the pack's entities is
    /// another layer's (``checkUniqueKeys(_:of:)``); then the store shows the new union.
    private func installPackOnDemand(from url: URL, force: Bool, library: PackLibrary) throws -> PackLibrary.InstallOutcome {
        try exclusively {
            let before = try everythingIfObserved()
            let installing = try Pack.open(at: url).manifest.id
            let outcome = try library.install(from: url, force: force, userStore: self) { packs in
                let union = try Self.packUnion(packs, layout: self.layout)
                guard let file = self.backend as? SQLiteBackend, let index = packs.firstIndex(where: { $0.manifest.id == installing }) else { return }
                let connection = try SQLiteBackend(path: file.location, durability: .normal, lockTimeout: 5, readOnly: true)
                defer { connection.close() }
                try connection.attach(union)
                try self.checkUniqueKeys(of: index, on: connection)
            }
            try showPacks(try library.installed, before: before)
            return outcome
        }
    }

    /// ``removePack(id:)`` on demand.
    private func removePackOnDemand(id: UUID, library: PackLibrary) throws {
        try exclusively {
            guard packs.contains(where: { $0.manifest.id == id }) else { throw PackError.notInstalled(id: id) }
            let before = try everythingIfObserved()
            try library.remove(id: id)
            try showPacks(try library.installed, before: before)
        }
    }

    /// Makes `packs` the union the store shows: its writer's connection attaches them, new
    /// snapshots do too (older ones keep theirs), edits of entities no longer in a pack are
    /// deleted, and observers get the difference (from `before`, the whole union as it was).
    private func showPacks(_ packs: [Pack], before: Context?) throws {
        guard let file = backend as? SQLiteBackend, let onDemand, let unionPacks else { return }
        let union = try Self.packUnion(packs, layout: layout)
        try file.reattach(union)
        unionPacks.union = union
        onDemand.discardConnections()
        if !isReadOnly { Self.deleteStale(try file.staleOverlayRecords(), layout: layout, backend: file) }
        if let before { observers.deliverReload(before: before, after: try onDemand.currentSnapshot().everything(), layout: layout) }
    }

    /// The whole union now, when observers must learn what a change of packs changed; nil
    /// without observers (then nothing is read). O(union), like a resident store's reload.
    private func everythingIfObserved() throws -> Context? {
        guard observers.count > 0, let onDemand else { return nil }
        return try onDemand.currentSnapshot().everything()
    }

    /// Throws ``PackError/uniqueCollision(pack:entity:index:packEntity:other:otherEntity:)``
    /// when an entity of the pack at `index` shares a unique key with an entity of another
    /// layer, as loading the union would find. SQL narrows the other layers' rows to those
    /// that may share a key with the pack's; a context with the schema's unique indexes
    /// decides. O(the pack's rows with unique keys × log n).
    private func checkUniqueKeys(of index: Int, on connection: SQLiteBackend) throws {
        guard let union = connection.packUnion else { return }
        let pack = union.packs[index].manifest.id
        let source = SQLExpression.column(PackUnion.sourceColumn), number = StoredValue.integer(Int64(index + 1))
        try connection.beginSnapshot()
        defer { connection.endSnapshot() }
        for entity in layout.entities where !entity.uniqueIndexes.isEmpty {
            let columns = SQLSelect.Output.columns(entity.columns.map { .column($0.name) })
            var incoming: [[StoredValue]] = []
            try connection.rows(SQLSelect(output: columns, table: entity.tableName, filter: .compare(source, .equal, .value(number)))) { incoming.append($0) }
            var others: [[StoredValue]] = []
            var seen = Set<StoredValue>()
            for start in stride(from: 0, to: incoming.count, by: 50) {
                let batch = incoming[start..<min(start + 50, incoming.count)]
                let filter = SQLExpression.all([.compare(source, .notEqual, .value(number)), .any(batch.map(entity.uniqueHolderFilter(ofRow:)))])
                try connection.rows(PackUnion.readingSources(SQLSelect(output: columns, table: entity.tableName, filter: filter), of: union)) { row in
                    if seen.insert(row[0]).inserted { others.append(row) }
                }
            }
            var scratch = Context()
            let keys = try entity.loadKeys(others.map { $0[0] }, into: &scratch)
            _ = try entity.loadRows(union.markSources(others, keys: keys, of: entity, in: &scratch), into: &scratch)
            do {
                _ = try entity.loadRows(incoming, into: &scratch)
            } catch let violation as UniqueConstraintViolation {
                // Named as loading the union would: the user store, or the other pack.
                let holder = keys.first { "\(entity.anyID($0, in: scratch))" == violation.existingID }
                var other = "the user store"
                if let holder, case .pack(let id) = entity.source(of: holder, in: scratch), let pack = union.packs.first(where: { $0.manifest.id == id }) {
                    other = "pack \(id) (\(pack.manifest.title))"
                }
                throw PackError.uniqueCollision(pack: pack, entity: violation.entityName, index: violation.indexName,
                                                packEntity: violation.newID, other: other, otherEntity: violation.existingID)
            }
        }
    }

    // MARK: Loading

    /// The union a store reading on demand shows over `packs`, each checked to be written
    /// with this schema (the library migrates installed packs when it opens).
    static func packUnion(_ packs: [Pack], layout: StoreLayout) throws -> PackUnion {
        for pack in packs where pack.manifest.schemaFingerprint != layout.fingerprint {
            throw PackError.schemaMismatch(path: pack.url.path, pack: pack.manifest.schemaFingerprint, expected: layout.fingerprint)
        }
        return PackUnion(packs: packs, layout: layout)
    }

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
        var fullText: Set<String>?
        for record in records {
            switch record.kind {
            case .row:
                guard let entity = layout.entityByName[record.name] else { break }
                try transaction.deleteRow(entity, id: record.id)
                // The row's postings go with it, where the file keeps them (on demand).
                if !entity.fullTextIndexes.isEmpty, fullText == nil { fullText = try transaction.fullTextIndexesPresent(layout) }
                for index in entity.fullTextIndexes where fullText?.contains(index.termsTable) == true {
                    let removed = try transaction.updateFullText(index, id: record.id, text: nil, isNew: false)
                    try transaction.addToFullTextTotals(index, documents: removed.documents, length: removed.length)
                }
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
