@_spi(SchemaStore) import SchemaRuntime

/// What each commit to a shared file changed, by id: the rows written or removed, the link
/// slots written and the archives, so that another store on the file loads only those
/// instead of the whole graph (`Store.catchUpWithOtherStores()`).
///
/// Commits are numbered 1, 2, 3... in the order they commit (each takes the next number
/// under the write lock), so a follower that saw commit n reads the entries of n + 1 and
/// later. The file keeps the last ``retainedCommits``; a follower further behind, or one that
/// finds a commit without entries (written by a version that kept no log), loads the graph
/// again instead. O(changed rows and slots) to write, per commit.
enum CommitLog {
    /// The table: `(commit, kind, name, id)`, indexed by commit.
    static let table = "schemagen:commits"
    /// How many commits the file keeps entries of.
    static let retainedCommits: Int64 = 1000

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
    }

    /// The entries of a write's change set, in the order the change writer writes them.
    static func entries(of changes: ChangeSet, layout: StoreLayout, context: Context) -> [Entry] {
        var entries: [Entry] = []
        for (table, keys) in changes.rows {
            if let archive = layout.archives[table] {
                entries += keys.map { Entry(kind: .archive, name: archive.entityName, id: archive.idValue($0, in: context)) }
            } else if let entity = layout.persisterByTable[table] {
                entries += keys.map { Entry(kind: .row, name: entity.entityName, id: entity.idValue($0, in: context)) }
            }
        }
        for link in layout.links {
            let slot = ChangeSet.Slot(table: link.owner, slot: link.slot)
            let owners = link.isToMany ? changes.toManyOrder[slot].map(Array.init) : changes.toOne[slot].map(Array.init)
            entries += (owners ?? []).map { Entry(kind: .link, name: link.name, id: link.ownerEntity.idValue($0, in: context)) }
        }
        return entries
    }
}
