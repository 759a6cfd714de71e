import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// Observing a store that reads on demand, without loading its graph.
///
/// A resident store learns what a commit changed by comparing its graphs before and after.
/// A store reading on demand holds no graph, and holding the snapshot before each commit
/// would pin the write-ahead log for as long as it observes. So every writer records in the
/// file's ``CommitLog`` what each commit did to each entity (inserted, updated, deleted,
/// relinked: the writer's own ``StoreChanges``), and an observing store reading on demand
/// checks the file every ``Store/externalCommitCheckInterval`` (`PRAGMA data_version`, O(1)),
/// and after a commit takes a new snapshot, reads the log's new entries in it and delivers
/// them: O(what the commits changed), whatever the size of the file, and no snapshot is held
/// between checks.
///
/// Commits found by one check are delivered as one ``StoreChanges`` whose ``StoreChanges/context``
/// is the snapshot after the last of them (as a resident store following other stores does).
/// Live queries re-run when a commit changed a table they read (keys of one snapshot name
/// nothing in the next).
extension Store {
    /// Starts following the file's commits for the observation about to be registered, if
    /// the store reads on demand (a resident store follows them already).
    func startObservingOnDemand() {
        guard onDemand != nil, (try? checkNotInsideAWrite()) != nil else { return }
        writeLock.withLock {
            guard !isClosed, !isResident, let sharing, let onDemand else { return }
            if !sharing.followsOnDemand {
                // From the commit the file holds now: later ones are this observation's.
                // A file that cannot be read now is reported by the next check; until then
                // the observation waits.
                guard let last = try? onDemand.currentSnapshot().lastCommit() else { return }
                sharing.seenCommit = last
                sharing.followsOnDemand = true
            }
            startFollowingOtherStores()
        }
    }

    /// Delivers the commits made since the last check, read from the log in a new snapshot.
    /// Called holding the write lock, while the store reads on demand.
    func deliverOnDemandCommits() throws {
        guard let sharing, let onDemand, sharing.followsOnDemand else { return }
        guard observers.count > 0 else {
            // No one observes: a later observation starts from the file as it is then.
            sharing.followsOnDemand = false
            return
        }
        let snapshot = try onDemand.currentSnapshot()
        let entries = try snapshot.commits(after: sharing.seenCommit)
        guard let last = entries.last?.commit else { return }
        let complete = entries.first!.commit == sharing.seenCommit + 1
            && Set(entries.map(\.commit)).count == Int(last - sharing.seenCommit)
        let (changes, touched) = try describe(entries.map(\.entry), complete: complete)
        sharing.seenCommit = last
        observers.deliverLogged(changes, touchedTables: touched, after: Context(reader: snapshot), layout: layout)
    }

    /// What log entries (of one commit or several in a row) changed, as ``StoreChanges``
    /// (numbered by the registry) and the tables they touched. When the log misses commits,
    /// every table counts as touched; a row logged without its change (by an older writer)
    /// counts as updated.
    private func describe(_ entries: [CommitLog.Entry], complete: Bool) throws -> (StoreChanges?, Set<ObjectIdentifier>) {
        var touched = Set<ObjectIdentifier>()
        if !complete { touched.formUnion(layout.entities.map(\.table)) }
        // Per entity type: each id's changes across the commits, in order of first mention.
        var byEntity: [String: [(id: StoredValue, changes: [CommitLog.Change])]] = [:]
        var positions: [String: [StoredValue: Int]] = [:]
        for entry in entries {
            switch entry.kind {
            case .row:
                guard let entity = layout.entityByName[entry.name] else { continue }
                touched.insert(entity.table)
                guard let change = entry.change.map({ CommitLog.Change(stored: $0, relations: entity.relations) })
                        ?? CommitLog.Change(row: .updated, relinked: []) else {
                    throw StoreError.corrupt(path: backend?.location ?? "", reason: "a record of \(CommitLog.table) is unreadable")
                }
                if let position = positions[entry.name]?[entry.id] {
                    byEntity[entry.name]![position].changes.append(change)
                } else {
                    positions[entry.name, default: [:]][entry.id] = byEntity[entry.name, default: []].count
                    byEntity[entry.name, default: []].append((entry.id, [change]))
                }
            case .link:
                guard let link = layout.linkByName[entry.name] else { continue }
                touched.formUnion([link.owner, link.target])
            case .archive:
                if let archive = layout.archivesByName[entry.name] { touched.insert(archive.table) }
            }
        }
        var entities: [String: AnyEntityChanges] = [:]
        var names: [String] = []
        for entity in layout.entities {
            guard let logged = byEntity[entity.entityName] else { continue }
            let relationOrder = Dictionary(entity.relations.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
            var combined: [(id: any Hashable & Sendable, change: CommitLog.Change)] = []
            for (id, changes) in logged {
                guard let change = Self.combine(changes, relationOrder: relationOrder) else { continue }
                combined.append((try entity.anyID(stored: id), change))
            }
            let changes = AnyEntityChanges(entries: combined)
            guard !changes.isEmpty else { continue }
            entities[entity.entityName] = changes
            names.append(entity.entityName)
        }
        let described = names.isEmpty ? nil : StoreChanges(commit: 0, context: Context(), entityNames: names, entities: entities)
        return (described, touched)
    }

    /// One entity's changes over several commits, as one: stored before the first (unless
    /// it inserted it) and after the last (unless it deleted it); relations relinked by any
    /// while it is stored after, in schema order. Nil when the commits leave it as it was.
    static func combine(_ changes: [CommitLog.Change], relationOrder: [String: Int]) -> CommitLog.Change? {
        let storedBefore = changes.first!.row != .inserted
        let storedAfter = changes.last!.row != .deleted
        let row: RowChange
        switch (storedBefore, storedAfter) {
        case (false, false): return nil
        case (false, true): row = .inserted
        case (true, false): row = .deleted
        case (true, true):
            // Deleted and saved again may differ as well: reported as updated.
            row = changes.contains { $0.row != .unchanged } ? .updated : .unchanged
        }
        var relinked: [String] = []
        if storedAfter {
            relinked = Array(Set(changes.flatMap(\.relinked))).sorted { relationOrder[$0, default: .max] < relationOrder[$1, default: .max] }
        }
        if row == .unchanged, relinked.isEmpty { return nil }
        return CommitLog.Change(row: row, relinked: relinked)
    }
}
