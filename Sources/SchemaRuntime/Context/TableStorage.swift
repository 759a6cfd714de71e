/// The storage of one entity type inside a ``Context``: interned keys, rows and link columns.
///
/// Every id an entity type sees (saved, or only linked to) is interned once to a dense
/// `Int32` key. Rows and links are arrays indexed by key, so reading a row or following a
/// link is an array access, and the link machinery works on plain integers for every entity
/// type alike. An id keeps its key (and its place in ``Context`` iteration order) until
/// ``Context/compact()`` frees the keys of ids that are neither stored nor linked.
///
/// Boxes are shared between copies of a context and copied on first write
/// (``Context/storage(_:)``), which is what makes copying a context O(1).
@usableFromInline
class TableStorage: @unchecked Sendable {
    // The per-key columns are read and written on every row and link operation. They are
    // `@exclusivity(unchecked)`: a table is only mutated through the one context that owns
    // it uniquely (``Context/storage(_:)`` copies a shared one first), so accesses cannot
    // overlap, and the run-time checks of class properties cost about a tenth of reading
    // rows into a context (`swift_beginAccess` on every append). They have no initial
    // values, which `init(copying:)` would make only to replace them (see `EntityTable`).

    /// Per key: whether a row is stored there. Kept beside the typed rows so that checking
    /// for a row costs one load, with no generic metadata and no copy of the row.
    @exclusivity(unchecked) @usableFromInline final var present: ChunkedArray<Bool>
    /// To-one link columns: `toOne[column][key]` is the linked key, or `-1`.
    @exclusivity(unchecked) @usableFromInline final var toOne: [ChunkedArray<Int32>]
    /// To-many link columns: `toMany[column][key]` is the ordered list of linked keys.
    @exclusivity(unchecked) @usableFromInline final var toMany: [ChunkedArray<LinkList>]
    /// Per key: how many links are stored at it plus how many point to it, from any table.
    /// A key with no row and no references is unused: its id is forgotten (see ``forget(_:)``).
    @exclusivity(unchecked) @usableFromInline final var references: ChunkedArray<Int32>
    /// Per key: the number of its ``EntitySource`` in ``Context/packSources`` (0, the user, for
    /// keys past the end).
    @exclusivity(unchecked) @usableFromInline final var origins: ChunkedArray<UInt16>
    /// Per to-one column: whether it is a `required` relation, which every stored entity
    /// must hold a link in at the end of each write.
    @usableFromInline final let isRequiredToOne: [Bool]
    /// Whether any to-one column is required: new rows are then checked at the end of the write.
    @usableFromInline final let hasRequiredToOne: Bool

    @usableFromInline
    init(toOneColumns: Int, toManyColumns: Int, requiredToOne: Set<Int>) {
        present = ChunkedArray()
        references = ChunkedArray()
        origins = ChunkedArray()
        toOne = Array(repeating: ChunkedArray(), count: toOneColumns)
        toMany = Array(repeating: ChunkedArray(), count: toManyColumns)
        isRequiredToOne = (0..<toOneColumns).map(requiredToOne.contains)
        hasRequiredToOne = !requiredToOne.isEmpty
    }

    @usableFromInline
    init(copying other: TableStorage) {
        toOne = other.toOne
        toMany = other.toMany
        references = other.references
        origins = other.origins
        present = other.present
        rowUndoCount = other.rowUndoCount
        isRequiredToOne = other.isRequiredToOne
        hasRequiredToOne = other.hasRequiredToOne
    }

    /// A shallow copy: arrays are shared until written, by Swift's own copy-on-write.
    @usableFromInline
    func copy() -> TableStorage { fatalError("subclass responsibility") }

    /// Whether an entity is stored under `key`. O(1).
    @inlinable
    final func hasRow(_ key: Int32) -> Bool { Int(key) < present.count && present[Int(key)] }

    /// The number of interned keys (stored, linked-only, or dead).
    var keyCount: Int { fatalError("subclass responsibility") }

    /// Un-interns the last key, which must hold no row (rollback of an intern).
    func removeLastKey() { fatalError("subclass responsibility") }

    /// Forgets the id of an unused key, so saving or linking the id again interns it anew, at
    /// the end of context order, exactly as after ``Context/compact()`` dropped the key.
    /// Returns false if the id already maps elsewhere.
    func forget(_ key: Int32) -> Bool { fatalError("subclass responsibility") }

    /// Maps the id of `key` back to it (rollback of ``forget(_:)``).
    func remember(_ key: Int32) { fatalError("subclass responsibility") }

    /// How many records the row undo log (``EntityTable/rowUndo``) holds. Counted here,
    /// beside the typed log, so that asking is one load: the code that asks (the end of
    /// every write) is not specialized for the entity type, and reading the log itself
    /// there looked up its generic metadata, about 2,000 instructions a table and write.
    @exclusivity(unchecked) @usableFromInline final var rowUndoCount = 0

    /// Whether the row undo log holds records.
    final var hasRowUndo: Bool { rowUndoCount > 0 }

    /// Puts back the row the newest ``EntityTable/recordRowWrite(_:old:)`` replaced (rollback).
    func undoLastRowWrite() { fatalError("subclass responsibility") }

    /// Empties the row undo log (the transaction that wrote it has ended).
    func discardRowUndo() { fatalError("subclass responsibility") }

    /// The entity's name in the schema.
    var entityName: String { fatalError("subclass responsibility") }

    /// The id interned as `key`, as text for error messages.
    func idDescription(_ key: Int32) -> String { fatalError("subclass responsibility") }

    /// The violation if `key` holds a row but no link in required to-one `column` (every
    /// required column when `column` is nil); `removed` is the key the link pointed to before
    /// the write removed it, or -1 if the entity was saved without one.
    func requiredLinkViolation(_ key: Int32, column: Int?, removed: Int32, in context: Context) -> RequiredRelationViolation? {
        fatalError("subclass responsibility")
    }

    /// Adds `delta` to the references of `key` and returns the new count. O(1) amortized.
    @inlinable @discardableResult
    final func addReferences(_ key: Int32, _ delta: Int32) -> Int32 {
        if Int(key) >= references.count { references.append(contentsOf: repeatElement(0, count: Int(key) + 1 - references.count)) }
        references[Int(key)] += delta
        return references[Int(key)]
    }

    /// Whether `key` holds no row and no link refers to it or is stored at it.
    final func isUnused(_ key: Int32) -> Bool {
        !hasRow(key) && (Int(key) >= references.count || references[Int(key)] == 0)
    }

    /// Shortens the link columns to `count` keys.
    final func truncateLinks(to count: Int) {
        for column in toOne.indices where toOne[column].count > count { toOne[column].removeLast(toOne[column].count - count) }
        for column in toMany.indices where toMany[column].count > count { toMany[column].removeLast(toMany[column].count - count) }
    }

    /// For each link column, the table its keys point into.
    var linkTargets: [(slot: LinkSlot, table: ObjectIdentifier)] { fatalError("subclass responsibility") }

    /// The table `slot`'s links point into, if the entity type has that slot. O(relations).
    final func targetTable(of slot: LinkSlot) -> ObjectIdentifier? {
        linkTargets.first { $0.slot == slot }?.table
    }

    /// The recorded save time of `key` (seconds since the reference date), or nil.
    func saveTime(_ key: Int32) -> Double? { fatalError("subclass responsibility") }

    /// Renumbers keys: `own[old]` is the new key or -1 to drop it; `targets` do the same for
    /// the tables the link columns point into. Returns the compacted copy.
    func compacted(own: [Int32], targets: [ObjectIdentifier: [Int32]]) -> TableStorage { fatalError("subclass responsibility") }

    /// Link columns with keys renumbered by `own` (rows) and `target` (values).
    final func remappedLinks(own: [Int32], keep: Int, targets: [ObjectIdentifier: [Int32]]) -> ([ChunkedArray<Int32>], [ChunkedArray<LinkList>]) {
        var targetOf: [LinkSlot: ObjectIdentifier] = [:]
        for (slot, table) in linkTargets { targetOf[slot] = table }
        let newToOne = toOne.enumerated().map { column, values -> ChunkedArray<Int32> in
            var result = ChunkedArray<Int32>(repeating: -1, count: keep)
            // No table for the target type means nothing was ever linked through this column.
            guard let map = targets[targetOf[.toOne(column)]!] else { return result }
            for (old, value) in values.enumerated() where own[old] >= 0 && value >= 0 { result[Int(own[old])] = map[Int(value)] }
            return result
        }
        let newToMany = toMany.enumerated().map { column, lists -> ChunkedArray<LinkList> in
            var result = ChunkedArray<LinkList>(repeating: LinkList(), count: keep)
            guard let map = targets[targetOf[.toMany(column)]!] else { return result }
            for (old, list) in lists.enumerated() where own[old] >= 0 && !list.isEmpty {
                result[Int(own[old])] = LinkList(deduplicating: list.keys.map { map[Int($0)] })
            }
            return result
        }
        return (newToOne, newToMany)
    }

    @inlinable
    final func toOneLink(_ column: Int, _ key: Int32) -> Int32 {
        let links = toOne[column]
        return Int(key) < links.count ? links[Int(key)] : -1
    }

    @inlinable
    final func toManyLinks(_ column: Int, _ key: Int32) -> LinkList {
        let links = toMany[column]
        return Int(key) < links.count ? links[Int(key)] : LinkList()
    }

    /// Grows the to-one column so `key` is a valid index. Amortized O(1).
    final func reserveToOne(_ column: Int, _ key: Int32) {
        let needed = Int(key) + 1 - toOne[column].count
        if needed > 0 { toOne[column].append(contentsOf: repeatElement(-1, count: needed)) }
    }

    /// Grows the to-many column so `key` is a valid index. Amortized O(1).
    final func reserveToMany(_ column: Int, _ key: Int32) {
        let needed = Int(key) + 1 - toMany[column].count
        if needed > 0 { toMany[column].append(contentsOf: repeatElement(LinkList(), count: needed)) }
    }
}

/// The typed part of a table: the id of each key and the stored (normalized) entities.
@usableFromInline
final class EntityTable<Entity: EntityModelProtocol>: TableStorage, @unchecked Sendable {
    // Unchecked for exclusivity, as the columns of ``TableStorage`` are.
    // The columns, `keyByID` and `updatedAtIndex` have no initial values: a class's
    // designated init evaluates them before its body, so `init(copying:)`, run for each
    // table a write changes, allocated an empty dictionary of 64 shards only to replace
    // (and free) it, and made empty columns to replace.
    /// id -> key.
    @exclusivity(unchecked) @usableFromInline var keyByID: ShardedDictionary<Entity.ID, Int32>
    /// key -> id.
    @exclusivity(unchecked) @usableFromInline var ids: ChunkedArray<Entity.ID>
    /// key -> stored entity, nil when the id is only linked to or was deleted.
    @exclusivity(unchecked) @usableFromInline var rows: ChunkedArray<Entity?>
    /// The number of non-nil rows.
    @exclusivity(unchecked) @usableFromInline var rowCount = 0

    /// Index storages by kind, and for each of `Entity.indexes` its position in its kind's array.
    @usableFromInline var ordered: [OrderedIndexStorage] = []
    @usableFromInline var hashed: [HashIndexStorage] = []
    @usableFromInline var unique: [UniqueIndexStorage] = []
    @usableFromInline var fullText: [FullTextIndexStorage] = []
    @usableFromInline let indexSlots: [Int]
    /// `Entity.indexes`, read once.
    @usableFromInline let descriptors: [IndexDescriptor<Entity>]
    /// `metadata updatedAt`: key -> seconds since the reference date (NaN when never saved),
    /// and an ordered index on it. Empty when the entity does not track it.
    @usableFromInline var updatedAt: ChunkedArray<Double>
    @usableFromInline var updatedAtIndex: OrderedIndexStorage
    @usableFromInline let tracksUpdatedAt: Bool
    /// Whether deleting an entity of this type can archive anything (`metadata softDelete` on
    /// it or on a type its cascades reach): decided once per table, read on every delete.
    @usableFromInline let archivesOnDelete: Bool
    /// What each row write of the running transaction replaced, oldest first: the row and its
    /// save time. Rollback pops them newest first (``Journal/Entry/row(table:key:)``).
    @usableFromInline var rowUndo: ContiguousArray<(key: Int32, old: Entity?, savedAt: Double?)> = []

    /// A table keeping `Entity.indexes`, or none when `indexed` is false (a context holding
    /// one query's rows, where scanning them is cheaper than indexing them), or only its
    /// unique ones with `uniqueOnly` (a write reading on demand: they check collisions).
    /// With `fewRows`, for a context made for one write or one query: its id map starts with
    /// one shard (``ShardedDictionary``) and grows as rows come.
    @usableFromInline
    convenience init(indexed: Bool = true, uniqueOnly: Bool = false, fewRows: Bool = false) {
        self.init(descriptors: !indexed ? [] : uniqueOnly ? Entity.indexes.filter { $0.isUnique } : Entity.indexes, fewRows: fewRows)
    }

    /// A table keeping the indexes `descriptors` (some of `Entity.indexes`); see
    /// ``init(indexed:uniqueOnly:fewRows:)`` for `fewRows`.
    @usableFromInline
    init(descriptors: [IndexDescriptor<Entity>], fewRows: Bool = false) {
        var slots: [Int] = []
        // A store's graph starts its id maps with many shards, so that a write copying one
        // copies few entries. A context made for one write or one query is never copied
        // that way: making 64 empty shards was over a third of making a table, which a
        // write on demand does for every entity type it touches (and frees them after).
        keyByID = fewRows ? ShardedDictionary(shardCount: 1) : ShardedDictionary()
        ids = ChunkedArray()
        rows = ChunkedArray()
        updatedAt = ChunkedArray()
        updatedAtIndex = OrderedIndexStorage(descending: [false])
        self.descriptors = descriptors
        tracksUpdatedAt = Entity.tracksUpdatedAt
        let shape = EntityTableShape.of(Entity.self)
        archivesOnDelete = shape.archivesOnDelete
        for descriptor in descriptors {
            switch descriptor.kind {
            case .ordered:
                slots.append(ordered.count)
                ordered.append(OrderedIndexStorage(descending: descriptor.fields.map { $0.descending }))
            case .hash:
                slots.append(hashed.count)
                hashed.append(HashIndexStorage())
            case .unique:
                slots.append(unique.count)
                unique.append(UniqueIndexStorage())
            case .fullText:
                slots.append(fullText.count)
                fullText.append(FullTextIndexStorage())
            }
        }
        indexSlots = slots
        super.init(toOneColumns: shape.toOneColumns, toManyColumns: shape.toManyColumns, requiredToOne: shape.requiredToOne)
    }

    @usableFromInline
    init(copying other: EntityTable<Entity>) {
        keyByID = other.keyByID
        ids = other.ids
        rows = other.rows
        rowCount = other.rowCount
        ordered = other.ordered
        hashed = other.hashed
        unique = other.unique
        fullText = other.fullText
        indexSlots = other.indexSlots
        descriptors = other.descriptors
        tracksUpdatedAt = other.tracksUpdatedAt
        archivesOnDelete = other.archivesOnDelete
        updatedAt = other.updatedAt
        updatedAtIndex = other.updatedAtIndex
        rowUndo = other.rowUndo
        super.init(copying: other)
    }

    @usableFromInline
    override func copy() -> TableStorage { EntityTable(copying: self) }

    /// Moves `key` from `old` to `new` in every index, skipping indexes whose key is unchanged.
    /// O(indexes × (log n + B)), plus the text length for full-text indexes.
    ///
    /// Written without optionals and enumerations of the generic descriptors: in unspecialized
    /// generic code each of those costs a metadata lookup per call, on every save.
    @inlinable
    func updateIndexes(key: Int32, old: Entity?, new: Entity?) {
        let descriptors = self.descriptors
        guard !descriptors.isEmpty else { return }
        if let old, let new {
            for position in 0..<descriptors.count { moveIndex(position, key, from: old, to: new) }
        } else if let old {
            for position in 0..<descriptors.count { removeFromIndex(position, key, old) }
        } else if let new {
            for position in 0..<descriptors.count { addToIndex(position, key, new) }
        }
    }

    @inlinable
    func addToIndex(_ position: Int, _ key: Int32, _ entity: Entity) {
        let descriptor = descriptors[position]
        if case .fullText = descriptor.kind {
            fullText[indexSlots[position]].insert(descriptor.text(of: entity), key)
        } else {
            insert(descriptor.key(of: entity), into: position, key)
        }
    }

    @inlinable
    func removeFromIndex(_ position: Int, _ key: Int32, _ entity: Entity) {
        let descriptor = descriptors[position]
        if case .fullText = descriptor.kind {
            fullText[indexSlots[position]].remove(descriptor.text(of: entity), key)
        } else {
            remove(descriptor.key(of: entity), from: position, key)
        }
    }

    /// Re-indexes only when the indexed value changed, computing each value once.
    @inlinable
    func moveIndex(_ position: Int, _ key: Int32, from old: Entity, to new: Entity) {
        let descriptor = descriptors[position]
        if case .fullText = descriptor.kind {
            let oldText = descriptor.text(of: old), newText = descriptor.text(of: new)
            guard oldText != newText else { return }
            fullText[indexSlots[position]].remove(oldText, key)
            fullText[indexSlots[position]].insert(newText, key)
            return
        }
        let oldKey = descriptor.key(of: old), newKey = descriptor.key(of: new)
        guard oldKey != newKey else { return }
        remove(oldKey, from: position, key)
        insert(newKey, into: position, key)
    }

    /// Adds `key` under `indexKey` to an ordered, hash or unique index. Unique indexes skip
    /// keys containing nil: nil never collides.
    @inlinable
    func insert(_ indexKey: IndexKey, into position: Int, _ key: Int32) {
        let slot = indexSlots[position]
        switch descriptors[position].kind {
        case .ordered: ordered[slot].insert(.init(key: indexKey, entity: key))
        case .hash: hashed[slot].insert(indexKey, key)
        case .unique: if !indexKey.containsNull { unique[slot].insert(indexKey, key) }
        case .fullText: preconditionFailure("full-text indexes take text, not keys")
        }
    }

    /// Removes `key` under `indexKey` from an ordered, hash or unique index.
    @inlinable
    func remove(_ indexKey: IndexKey, from position: Int, _ key: Int32) {
        let slot = indexSlots[position]
        switch descriptors[position].kind {
        case .ordered: ordered[slot].remove(.init(key: indexKey, entity: key))
        case .hash: hashed[slot].remove(indexKey, key)
        case .unique: if !indexKey.containsNull { unique[slot].remove(indexKey, key) }
        case .fullText: preconditionFailure("full-text indexes take text, not keys")
        }
    }

    override var keyCount: Int { ids.count }

    override func removeLastKey() {
        let key = ids.count - 1
        precondition(rows[key] == nil, "only a key without a row can be un-interned")
        if keyByID[ids[key]] == Int32(key) { keyByID[ids[key]] = nil }
        ids.removeLast()
        rows.removeLast()
        present.removeLast()
        truncateLinks(to: key)
        if references.count > key { references.removeLast(references.count - key) }
        if updatedAt.count > key { updatedAt.removeLast(updatedAt.count - key) }
    }

    override func forget(_ key: Int32) -> Bool {
        guard keyByID[ids[Int(key)]] == key else { return false }
        keyByID[ids[Int(key)]] = nil
        return true
    }

    override func remember(_ key: Int32) {
        keyByID[ids[Int(key)]] = key
    }

    /// Records that `key` is about to change from `old` (before its save time changes).
    @inlinable
    func recordRowWrite(_ key: Int32, old: Entity?) {
        rowUndo.append((key, old, savedAt(key)))
        rowUndoCount += 1
    }

    override func undoLastRowWrite() {
        let (key, value, savedAt) = rowUndo.removeLast()
        rowUndoCount -= 1
        let current = rows[Int(key)]
        rows[Int(key)] = value
        present[Int(key)] = value != nil
        updateIndexes(key: key, old: current, new: value)
        setSavedAt(key, savedAt)
        rowCount += (value != nil ? 1 : 0) - (current != nil ? 1 : 0)
    }

    override func discardRowUndo() {
        rowUndo = []
        rowUndoCount = 0
    }

    override var entityName: String { Entity.entityName }

    override func idDescription(_ key: Int32) -> String { "\(ids[Int(key)])" }

    override func requiredLinkViolation(_ key: Int32, column: Int?, removed: Int32, in context: Context) -> RequiredRelationViolation? {
        guard hasRow(key) else { return nil }
        // The common case, every link present, reads only the link columns.
        if let column {
            if toOneLink(column, key) >= 0 { return nil }
        } else if !isRequiredToOne.indices.contains(where: { isRequiredToOne[$0] && toOneLink($0, key) < 0 }) {
            return nil
        }
        for relation in Entity.relations where relation.isRequired {
            let slot = relation.slot.column
            guard column == nil || column == slot, toOneLink(slot, key) < 0 else { continue }
            var removedTarget: RequiredRelationViolation.RemovedLink?
            if removed >= 0, let targets = context.storageIfPresent(relation.targetTable) {
                removedTarget = .init(id: targets.idDescription(removed), isStored: targets.hasRow(removed))
            }
            return RequiredRelationViolation(
                entityName: Entity.entityName, id: idDescription(key), relationName: relation.name,
                targetName: relation.target.entityName, removedLink: removedTarget)
        }
        return nil
    }

    override func saveTime(_ key: Int32) -> Double? { savedAt(key) }

    override var linkTargets: [(slot: LinkSlot, table: ObjectIdentifier)] {
        Entity.relations.map { ($0.slot, $0.targetTable) }
    }

    override func compacted(own: [Int32], targets: [ObjectIdentifier: [Int32]]) -> TableStorage {
        let keep = own.filter { $0 >= 0 }.count
        let copy = EntityTable<Entity>(descriptors: descriptors)
        (copy.toOne, copy.toMany) = remappedLinks(own: own, keep: keep, targets: targets)
        copy.ids.reserveCapacity(keep)
        copy.rows.reserveCapacity(keep)
        for (old, new) in own.enumerated() where new >= 0 {
            copy.ids.append(ids[old])
            if keyByID[ids[old]] == Int32(old) { copy.keyByID[ids[old]] = new }
            copy.addReferences(new, Int(old) < references.count ? references[old] : 0)
            copy.rows.append(rows[old])
            copy.present.append(present[old])
            if let row = rows[old] {
                copy.rowCount += 1
                copy.updateIndexes(key: new, old: nil, new: row)
            }
            if let time = savedAt(Int32(old)) { copy.setSavedAt(new, time) }
            if old < origins.count, origins[old] != 0 {
                copy.origins.append(contentsOf: repeatElement(0, count: Int(new) + 1 - copy.origins.count))
                copy.origins[Int(new)] = origins[old]
            }
        }
        return copy
    }

    /// The recorded save time of `key`, or nil.
    @inlinable
    func savedAt(_ key: Int32) -> Double? {
        guard Int(key) < updatedAt.count, !updatedAt[Int(key)].isNaN else { return nil }
        return updatedAt[Int(key)]
    }

    /// Sets (or, with nil, clears) the recorded save time of `key`, keeping its index in step.
    /// O(log n + B).
    @inlinable
    func setSavedAt(_ key: Int32, _ time: Double?) {
        guard tracksUpdatedAt else { return }
        if let old = savedAt(key) { updatedAtIndex.remove(.init(key: IndexKey(.double(old)), entity: key)) }
        if Int(key) >= updatedAt.count { updatedAt.append(contentsOf: repeatElement(.nan, count: Int(key) + 1 - updatedAt.count)) }
        updatedAt[Int(key)] = time ?? .nan
        if let time { updatedAtIndex.insert(.init(key: IndexKey(.double(time)), entity: key)) }
    }

    /// The key of `id`, and whether it was interned just now. One hash probe either way.
    /// Amortized O(1).
    @inlinable
    func intern(_ id: Entity.ID) -> (key: Int32, isNew: Bool) {
        intern(id, row: nil)
    }

    /// ``intern(_:)``, with `row` stored at a new key. Appended with its row, a new key's
    /// slot is written once: a write appending to the last chunk of its store's graph then
    /// claims the slot and never copies the chunk (``ChunkedArray/append(_:)``), where
    /// writing the row afterwards would copy it (256 rows, each retained).
    @inlinable
    func intern(_ id: Entity.ID, row: Entity?) -> (key: Int32, isNew: Bool) {
        let next = Int32(ids.count)
        let key = Self.claim(&keyByID[id, default: -1], next)
        guard key == next else { return (key, false) }
        ids.append(id)
        rows.append(row)
        present.append(row != nil)
        return (key, true)
    }

    /// The value of a dictionary slot, set to `next` first if it is new (`-1`).
    @inlinable
    static func claim(_ slot: inout Int32, _ next: Int32) -> Int32 {
        if slot < 0 { slot = next }
        return slot
    }
}
