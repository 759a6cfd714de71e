@_spi(SchemaStore) import SchemaRuntime

/// What each commit to a shared file changed, by id: the rows written or removed (with what
/// happened to each, as ``StoreChanges`` says), the link slots written and the archives, so
/// that another store on the file loads only those instead of the whole graph
/// (`Store.catchUpWithOtherStores()`), and a store reading on demand tells its observers
/// what changed without holding the graph before the commit (`Store.deliverOnDemandCommits()`).
///
/// Commits are numbered 1, 2, 3... in the order they commit (each takes the next number
/// under the write lock), so a follower that saw commit n reads the entries of n + 1 and
/// later. The file keeps the last ``retainedCommits``; a follower further behind, or one that
/// finds a commit without entries (written by a version that kept no log), loads the graph
/// again instead. O(changed rows and slots) to write, per commit.
enum CommitLog {
    /// The table: `(commit, kind, name, id, change)`, indexed by commit.
    static let table = "schemagen:commits"
    /// How many commits the file keeps entries of.
    static let retainedCommits: Int64 = 1000
    /// On a server, a commit's entries of one table go as sets of up to ``setSize`` in a row
    /// (arrays) once there are this many: a row each costs the server more than its entry.
    static let setThreshold = 64
    static let setSize = 10_000

    enum Kind: String, Sendable {
        /// A row of the entity table `name`, written or removed.
        case row
        /// The links of owner `id` in the link table `name`.
        case link
        /// The soft-deleted archive of entity `name`.
        case archive
    }

    struct Entry: Sendable, Hashable {
        let kind: Kind
        let name: String
        let id: StoredValue
        /// For a row: what the commit did to the entity (``Change``), as stored. For the
        /// links of a to-many slot the commit only appended to: how many it appended, at
        /// the list's end (a follower reads just those, ``appendedCount``). Nil for other
        /// links and archives, and for entries logged by a version that did not record it.
        var change: StoredValue? = nil

        /// For a link entry, how many links the commit appended to the end of the list
        /// and did nothing else to it; nil when the list must be read whole.
        var appendedCount: Int? {
            guard kind == .link, case .integer(let count)? = change, count > 0 else { return nil }
            return Int(count)
        }

        /// Whether the entry says the commit left the row's fields as they were, changing
        /// only the entity's links (a chat a message was added to): a follower holding the
        /// row has nothing of it to read. False for other kinds, and when the entry does not
        /// say (a version that did not record it).
        var leavesRowUnchanged: Bool {
            guard kind == .row else { return false }
            switch change {
            case .integer(let value)?: return value >= 0 && value & 3 == Int64(RowChange.unchanged.code)
            // The text form, `row:relations`, with no row word for an unchanged row.
            case .text(let text)?: return text.isEmpty || text.hasPrefix(":")
            default: return false
            }
        }

        /// Equal entries name the same row, slot or archive (a follower loads each once).
        static func == (lhs: Entry, rhs: Entry) -> Bool { lhs.kind == rhs.kind && lhs.name == rhs.name && lhs.id == rhs.id }
        func hash(into hasher: inout Hasher) {
            hasher.combine(kind)
            hasher.combine(name)
            hasher.combine(id)
        }
    }

    /// What one commit did to one entity: its row (inserted, updated, deleted, or neither)
    /// and the relations whose links changed.
    ///
    /// Stored as one integer, so logging it costs a byte or two per entry: the row change in
    /// the low two bits, then a bit per relation, in schema order (the log is dropped when
    /// the schema changes, so positions hold). An entity type with more than 61 relations
    /// stores text instead: `row:relation,relation` (`updated:chat`, `:messages`).
    struct Change: Sendable, Hashable {
        let row: RowChange
        /// Names, in schema order.
        let relinked: [String]

        /// The most relations an entity type may have for its changes to be stored as integers.
        static let maximumBits = 61

        /// The stored form of `row` and the relations at `positions` (schema order).
        static func stored(_ row: RowChange, relinked positions: [Int], of relations: [RelationInfo]) -> StoredValue {
            guard relations.count <= maximumBits else {
                let word = row == .unchanged ? "" : "\(row)"
                return .text(positions.isEmpty ? word : word + ":" + positions.map { relations[$0].name }.joined(separator: ","))
            }
            var bits: Int64 = 0
            for position in positions { bits |= 1 << Int64(position) }
            return .integer(bits << 2 | Int64(row.code))
        }

        /// Nil for a value no writer writes.
        init?(stored: StoredValue, relations: [RelationInfo]) {
            switch stored {
            case .integer(let value):
                guard let row = RowChange(code: Int(value & 3)), value >= 0 else { return nil }
                self.row = row
                let bits = value >> 2
                guard bits >> relations.count == 0 else { return nil }
                relinked = relations.indices.filter { bits & (1 << Int64($0)) != 0 }.map { relations[$0].name }
            case .text(let text):
                let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                switch parts[0] {
                case "": row = .unchanged
                case "inserted": row = .inserted
                case "updated": row = .updated
                case "deleted": row = .deleted
                default: return nil
                }
                relinked = parts.count > 1 ? parts[1].split(separator: ",").map(String.init) : []
            default:
                return nil
            }
        }

        init(row: RowChange, relinked: [String]) {
            self.row = row
            self.relinked = relinked
        }
    }

    /// The entries of a write: a row entry for each entity `description` lists (which is all
    /// a follower must load again), then its archives and written link slots.
    static func entries(of changeSet: ChangeSet, description: CommitDescription, layout: StoreLayout, context: Context) -> [Entry] {
        var entries = description.logEntries(layout: layout, after: context)
        for (table, keys) in changeSet.rows {
            guard let archive = layout.archives[table] else { continue }
            entries += keys.map { Entry(kind: .archive, name: archive.entityName, id: archive.idValue($0, in: context)) }
        }
        for link in layout.links {
            let slot = ChangeSet.Slot(table: link.owner, slot: link.slot)
            guard link.isToMany else {
                entries += (changeSet.toOne[slot]?.ordered ?? []).map { Entry(kind: .link, name: link.name, id: link.ownerEntity.idValue($0, in: context)) }
                continue
            }
            let lists = changeSet.toMany[slot] ?? [:]
            entries += (changeSet.toManyOrder[slot]?.ordered ?? []).map { key in
                // Appends only (a message sent to a chat): followers read the new tail, not
                // a list that may be long.
                let appended = lists[key].map { $0.isReplaced || !$0.removed.isEmpty ? 0 : Set($0.appended).count } ?? 0
                return Entry(kind: .link, name: link.name, id: link.ownerEntity.idValue(key, in: context), change: appended > 0 ? .integer(Int64(appended)) : nil)
            }
        }
        // A write whose changes cancel out (an entity saved and deleted again) still commits:
        // one entry naming no entity keeps its number in the log, so readers see no gap
        // (which would make them read everything again) and no later commit reuses it.
        return entries.isEmpty ? [Entry(kind: .row, name: "", id: .integer(0))] : entries
    }
}

extension AnyEntityChanges {
    /// The changes the log entries of one entity type name, in the order of the entries.
    init(entries: [(id: any Hashable & Sendable, change: CommitLog.Change)]) {
        self.init()
        for (id, change) in entries {
            switch change.row {
            case .inserted: inserted.append(id)
            case .updated: updated.append(id)
            case .deleted: deleted.append(id)
            case .unchanged: break
            }
            if !change.relinked.isEmpty { relinked.append((id, change.relinked)) }
        }
    }
}
