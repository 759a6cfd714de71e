/// What one committed write changed, by interned key: the rows written or removed and the
/// link slots written. A store derives the SQL of a commit from it, so a commit costs what
/// the write changed, however large the graph is.
///
/// Built from the write's journal when its transaction commits (writes undone by an inner
/// transaction that threw are not in it). Keys stay valid in the context the write produced:
/// ``Context/compact()``, the only renumbering, cannot run inside a transaction.
@_spi(SchemaStore)
public struct ChangeSet: Sendable {
    /// A link column of one table.
    public struct Slot: Hashable, Sendable {
        public let table: ObjectIdentifier
        public let slot: LinkSlot

        public init(table: ObjectIdentifier, slot: LinkSlot) {
            self.table = table
            self.slot = slot
        }
    }

    /// How the links of one to-many slot changed.
    public struct ListChange: Sendable {
        /// The whole list was replaced: store it again from scratch.
        public internal(set) var isReplaced = false
        /// Targets removed from the list at some point of the write (some may be back at its end).
        public internal(set) var removed: Set<Int32> = []
        /// Targets appended during the write, in order (some may have been removed again).
        public internal(set) var appended: [Int32] = []
    }

    /// Keys in the order of their first change, each once.
    public struct Keys: Sendable, Sequence {
        public private(set) var ordered: [Int32] = []
        private var seen: Set<Int32> = []

        mutating func insert(_ key: Int32) {
            if seen.insert(key).inserted { ordered.append(key) }
        }

        public func makeIterator() -> IndexingIterator<[Int32]> { ordered.makeIterator() }
    }

    /// Per table: the keys whose row was written or removed.
    public private(set) var rows: [ObjectIdentifier: Keys] = [:]
    /// Per table: the keys of `rows` whose row the write removed at some point; those with a
    /// row at its end were saved again after. A context that forgets no key (one reading on
    /// demand) keeps an id's key through its delete; others give the id a new key.
    public private(set) var removedRows: [ObjectIdentifier: Set<Int32>] = [:]
    /// Per to-one slot: the keys whose link was set or cleared.
    public private(set) var toOne: [Slot: Keys] = [:]
    /// Per to-many slot: the keys whose list changed, and how.
    public private(set) var toMany: [Slot: [Int32: ListChange]] = [:]
    /// Per to-many slot: the keys of `toMany`, in the order of their first change.
    public private(set) var toManyOrder: [Slot: Keys] = [:]

    /// The number of rows written or removed, over every table. O(tables).
    public var rowCount: Int { rows.values.reduce(0) { $0 + $1.ordered.count } }

    /// Per table, the keys whose row or links the write touched (each key once per kind of
    /// change). O(changed keys).
    public var touchedKeys: [ObjectIdentifier: [Int32]] {
        var touched: [ObjectIdentifier: [Int32]] = [:]
        for (table, keys) in rows { touched[table, default: []].append(contentsOf: keys.ordered) }
        for (slot, keys) in toOne { touched[slot.table, default: []].append(contentsOf: keys.ordered) }
        for (slot, lists) in toMany { touched[slot.table, default: []].append(contentsOf: lists.keys) }
        return touched
    }

    /// Whether the write changed nothing.
    public var isEmpty: Bool { rows.isEmpty && toOne.isEmpty && toMany.isEmpty }

    /// Summarizes a committed journal. O(entries).
    init(_ journal: Journal) {
        for entry in journal.entries {
            switch entry {
            case let .row(table, key, removed):
                rows[table, default: Keys()].insert(key)
                if removed { removedRows[table, default: []].insert(key) }
            case let .toOne(table, column, key, _, _):
                toOne[Slot(table: table, slot: .toOne(column)), default: Keys()].insert(key)
            case let .appended(table, column, key, value, _):
                update(Slot(table: table, slot: .toMany(column)), key) { change in
                    if !change.isReplaced { change.appended.append(value) }
                }
            case let .removed(table, column, key, value, _, _):
                update(Slot(table: table, slot: .toMany(column)), key) { change in
                    if !change.isReplaced { change.removed.insert(value) }
                }
            case let .replaced(table, column, key, _, _):
                update(Slot(table: table, slot: .toMany(column)), key) { change in
                    change = ListChange(isReplaced: true)
                }
            case .interned, .forgot:
                // Ids are stored with their rows and links; interning alone changes nothing durable.
                break
            }
        }
    }

    private mutating func update(_ slot: Slot, _ key: Int32, _ body: (inout ListChange) -> Void) {
        toManyOrder[slot, default: Keys()].insert(key)
        body(&toMany[slot, default: [:]][key, default: ListChange()])
    }
}

extension Context {
    /// Runs `body` as a transaction, like ``transaction(_:)``, and returns with its result
    /// what the committed write changed. Must not run inside another transaction: an outer
    /// one could still undo the changes.
    @_spi(SchemaStore)
    public mutating func trackingChanges<Result>(_ body: (inout Context) throws -> Result) throws -> (Result, ChangeSet) {
        precondition(!isInTransaction, "trackingChanges(_:) must be the outermost transaction")
        var committed: Journal?
        let result = try transaction(body, committed: &committed)
        return (result, ChangeSet(committed!))
    }

    /// ``trackingChanges(_:)``, also returning the context as it was before, over the same
    /// keys: what a write on a store reading on demand compares (it has no graph before).
    @_spi(SchemaStore)
    public mutating func trackingChangesKeepingBefore<Result>(_ body: (inout Context) throws -> Result) throws -> (Result, ChangeSet, before: Context) {
        precondition(!isInTransaction, "trackingChangesKeepingBefore(_:) must be the outermost transaction")
        var committed: Journal?
        var before: Context?
        let result = try transaction(body, committed: &committed, before: &before, keepingBefore: true)
        return (result, ChangeSet(committed!), before!)
    }
}
