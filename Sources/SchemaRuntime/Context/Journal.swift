import Foundation

/// The undo log of the running transaction.
///
/// Each primitive write records how to undo itself. Rolling back replays the entries in
/// reverse, which restores every row and link slot to its value before the transaction,
/// however the writes interleaved. This costs O(1) per write, where restoring a snapshot
/// would force a full copy of every table the transaction touched.
@usableFromInline
struct Journal: Sendable {
    @usableFromInline
    enum Entry: Sendable {
        case toOne(table: ObjectIdentifier, column: Int, key: Int32, old: Int32, target: ObjectIdentifier)
        case appended(table: ObjectIdentifier, column: Int, key: Int32, value: Int32, target: ObjectIdentifier)
        /// `value` was removed from a to-many slot, at `index` of its storage.
        case removed(table: ObjectIdentifier, column: Int, key: Int32, value: Int32, index: Int, target: ObjectIdentifier)
        case replaced(table: ObjectIdentifier, column: Int, key: Int32, old: LinkList, target: ObjectIdentifier)
        /// The row of `key` was written (or `removed`): the table's ``EntityTable/rowUndo``
        /// holds what it replaced. Typed and inline there, so a write allocates no undo
        /// closure (a million small allocations freed at commit stalled the allocator for
        /// tens of milliseconds).
        case row(table: ObjectIdentifier, key: Int32, removed: Bool)
        /// A new id was interned as the table's last key.
        case interned(table: ObjectIdentifier)
        /// The id of an unused key was forgotten.
        case forgot(table: ObjectIdentifier, key: Int32)
    }

    @usableFromInline var entries: [Entry] = []
    /// Entities to check for their required links when the outermost transaction ends: new
    /// rows (`column` nil: every required column) and entities whose required link was
    /// cleared. Each check reads the state at the end, so one for an undone write is harmless.
    @usableFromInline var requiredLinkChecks: [RequiredLinkCheck] = []
    /// Open while the transaction that created this journal runs. A context copied inside a
    /// transaction carries the journal along; the token tells the copy when it has ended.
    @usableFromInline let token = TransactionToken()
}

/// An entity whose required to-one links must be present when the outermost transaction ends.
@usableFromInline
struct RequiredLinkCheck: Sendable {
    @usableFromInline let table: ObjectIdentifier
    @usableFromInline let key: Int32
    /// The column whose link was cleared, or nil for a new row (every required column).
    @usableFromInline let column: Int?
    /// The key the cleared link pointed to, or -1.
    @usableFromInline let removed: Int32

    @usableFromInline
    init(table: ObjectIdentifier, key: Int32, column: Int?, removed: Int32) {
        self.table = table
        self.key = key
        self.column = column
        self.removed = removed
    }
}

/// Whether the outermost transaction that opened a journal is still running. Shared by every
/// copy of a context made while it runs, possibly on other threads, hence the lock: one for
/// all tokens, since it guards a single Bool and so is never held for long.
@usableFromInline
final class TransactionToken: @unchecked Sendable {
    private static let lock = NSLock()
    private var open = true

    var isOpen: Bool { Self.lock.withLock { open } }
    func close() { Self.lock.withLock { open = false } }
}

extension Context {
    /// Runs `body` as a transaction: if it throws, every change it made is undone and the
    /// error is rethrown. Transactions nest; an inner one that throws undoes only its own changes.
    public mutating func transaction<Result>(_ body: (inout Context) throws -> Result) throws -> Result {
        var committed: Journal?
        return try transaction(body, committed: &committed)
    }

    /// ``transaction(_:)``, handing the journal of the outermost transaction to `committed`
    /// when it commits (the record of every write that stayed, for ``trackingChanges(_:)``).
    mutating func transaction<Result>(_ body: (inout Context) throws -> Result, committed: inout Journal?) throws -> Result {
        var before: Context?
        return try transaction(body, committed: &committed, before: &before, keepingBefore: false)
    }

    /// ``transaction(_:committed:)``; with `keepingBefore`, also hands `before` the context as
    /// it was when the outermost transaction began, over the same keys (this context with
    /// the transaction's writes undone): O(writes), plus a copy of each table they wrote.
    mutating func transaction<Result>(_ body: (inout Context) throws -> Result, committed: inout Journal?,
                                      before: inout Context?, keepingBefore: Bool) throws -> Result {
        // A journal whose transaction has ended came with a copy made inside it: drop it.
        let isOutermost = !isInTransaction
        if isOutermost {
            journal = Journal()
            // A context copied in the middle of a save starts its own saves at the top.
            embeddingDepth = 0
        }
        let token = journal!.token
        let mark = journal!.entries.count
        do {
            let result = try body(&self)
            if isOutermost {
                // `required` relations are checked once, when every link of the write is made.
                if let violation = firstRequiredLinkViolation() { throw violation }
                if keepingBefore {
                    var copy = self
                    copy.rollback(to: 0)
                    copy.journal = nil
                    before = copy
                }
                committed = journal!
                token.close()
                journal = nil
                discardRowUndo()
                compactLinkLists(committed!)
            }
            return result
        } catch {
            rollback(to: mark)
            if isOutermost { token.close(); journal = nil; discardRowUndo() }
            throw error
        }
    }

    /// Whether a transaction is running on this context, or on the context this one was
    /// copied from inside a transaction that has not ended yet.
    public var isInTransaction: Bool {
        journal?.token.isOpen ?? false
    }

    @inlinable
    mutating func record(_ entry: @autoclosure () -> Journal.Entry) {
        if journal != nil { journal!.entries.append(entry()) }
    }

    /// Asks for `key` of `table` to be checked for its required links when the outermost
    /// transaction ends. Outside a transaction (low-level calls only) there is nothing to check.
    @inlinable
    mutating func checkRequiredLinks(_ table: ObjectIdentifier, _ key: Int32, column: Int? = nil, removed: Int32 = -1) {
        if journal != nil { journal!.requiredLinkChecks.append(RequiredLinkCheck(table: table, key: key, column: column, removed: removed)) }
    }

    /// The violation of a required relation of the stored entity `id`, in the current state,
    /// whatever the end of the transaction would find; nil when it is not stored.
    func requiredLinkViolation<Entity: EntityModelProtocol>(of id: Entity.ID, _ type: Entity.Type) -> RequiredRelationViolation? {
        guard let key = storedKey(of: id, type), let table = tables[ObjectIdentifier(type)] else { return nil }
        return table.requiredLinkViolation(key.rawValue, column: nil, removed: -1, in: self)
    }

    /// The first recorded check that fails in the current state. O(checks × required relations).
    ///
    /// An entity may be checked more than once in a write (saved new, then unlinked by a
    /// later save): the violation names the last change that removed its link, so the error
    /// points at the save that broke the rule, not at the one that made the entity.
    func firstRequiredLinkViolation() -> RequiredRelationViolation? {
        guard let checks = journal?.requiredLinkChecks else { return nil }
        // Checks come in runs of one table: look each table up once per run.
        var current: (id: ObjectIdentifier, table: TableStorage?)?
        for check in checks {
            if current?.id != check.table { current = (check.table, tables[check.table]) }
            guard let table = current?.table,
                  let violation = table.requiredLinkViolation(check.key, column: check.column, removed: check.removed, in: self) else { continue }
            guard violation.removedLink == nil else { return violation }
            // The last removal of a link of this entity that still leaves it without one.
            for later in checks.reversed() where later.table == check.table && later.key == check.key && later.removed >= 0 {
                if let explained = table.requiredLinkViolation(later.key, column: later.column, removed: later.removed, in: self) {
                    return explained
                }
            }
            return violation
        }
        return nil
    }

    /// Empties the row undo logs when the outermost transaction ends. A table box still
    /// shared with a copy made inside the transaction keeps its log (emptying it would copy
    /// the whole table); undo only ever pops records of the running transaction, so an
    /// older prefix is never read.
    private mutating func discardRowUndo() {
        // A copy of the keys, not `tables.indices`: iterating the indices keeps the dictionary
        // shared, so every box would look shared and nothing would be discarded.
        for id in Array(tables.keys) where tables[id]!.hasRowUndo {
            guard isKnownUniquelyReferenced(&tables[id]!) else { continue }
            tables[id]!.discardRowUndo()
        }
    }

    /// Drops the tombstones of the link lists the committed transaction removed from, where
    /// they have grown to half a list: no rollback can address their positions any more.
    /// O(entries), plus O(n) per list compacted (amortized over the removals).
    private mutating func compactLinkLists(_ committed: Journal) {
        for entry in committed.entries {
            // A box shared with a copy keeps its tombstones: compacting would copy the table.
            guard case let .removed(table, column, key, _, _, _) = entry, let index = tables.index(forKey: table),
                  isKnownUniquelyReferenced(&tables.values[index]) else { continue }
            tables.values[index].toMany[column][Int(key)].compactIfSparse()
        }
    }

    /// Undoes the journal entries after `mark`, newest first, without journaling the undo.
    mutating func rollback(to mark: Int) {
        guard var pending = journal else { return }
        journal = nil
        for entry in pending.entries[mark...].reversed() {
            // Link undos keep the reference counts in step but forget nothing: the state
            // they restore was consistent, and `forgot` entries restore forgotten ids.
            switch entry {
            case let .toOne(table, column, key, old, target):
                let current = storage(table).toOne[column][Int(key)]
                storage(table).toOne[column][Int(key)] = old
                if current >= 0 { countLink(table, key, target, current, -1) }
                if old >= 0 { countLink(table, key, target, old, 1) }
            case let .appended(table, column, key, _, target):
                let value = storage(table).toMany[column][Int(key)].removeLast()
                countLink(table, key, target, value, -1)
            case let .removed(table, column, key, value, index, target):
                storage(table).toMany[column][Int(key)].restore(value, at: index)
                countLink(table, key, target, value, 1)
            case let .replaced(table, column, key, old, target):
                let current = storage(table).toMany[column][Int(key)]
                storage(table).toMany[column][Int(key)] = old
                countReplacement(table, key, target, from: current, to: old)
            case let .row(table, _, _):
                storage(table).undoLastRowWrite()
            case let .interned(table):
                storage(table).removeLastKey()
            case let .forgot(table, key):
                storage(table).remember(key)
            }
        }
        pending.entries.removeSubrange(mark...)
        journal = pending
    }
}
