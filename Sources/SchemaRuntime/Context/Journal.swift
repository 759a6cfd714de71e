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
        case toOne(table: ObjectIdentifier, column: Int, key: Int32, old: Int32)
        case appended(table: ObjectIdentifier, column: Int, key: Int32)
        case removed(table: ObjectIdentifier, column: Int, key: Int32, value: Int32, index: Int)
        case replaced(table: ObjectIdentifier, column: Int, key: Int32, old: LinkList)
        case row(@Sendable (inout Context) -> Void)
    }

    @usableFromInline var entries: [Entry] = []
}

extension Context {
    /// Runs `body` as a transaction: if it throws, every change it made is undone and the
    /// error is rethrown. Transactions nest; an inner one that throws undoes only its own changes.
    public mutating func transaction<Result>(_ body: (inout Context) throws -> Result) throws -> Result {
        let isOutermost = journal == nil
        if isOutermost { journal = Journal() }
        let mark = journal!.entries.count
        do {
            let result = try body(&self)
            if isOutermost { journal = nil }
            return result
        } catch {
            rollback(to: mark)
            if isOutermost { journal = nil }
            throw error
        }
    }

    @inlinable
    mutating func record(_ entry: @autoclosure () -> Journal.Entry) {
        if journal != nil { journal!.entries.append(entry()) }
    }

    /// Undoes the journal entries after `mark`, newest first, without journaling the undo.
    mutating func rollback(to mark: Int) {
        guard var pending = journal else { return }
        journal = nil
        for entry in pending.entries[mark...].reversed() {
            switch entry {
            case let .toOne(table, column, key, old):
                storage(table).toOne[column][Int(key)] = old
            case let .appended(table, column, key):
                storage(table).toMany[column][Int(key)].removeLast()
            case let .removed(table, column, key, value, index):
                storage(table).toMany[column][Int(key)].insert(value, at: index)
            case let .replaced(table, column, key, old):
                storage(table).toMany[column][Int(key)] = old
            case let .row(undo):
                undo(&self)
            }
        }
        pending.entries.removeSubrange(mark...)
        journal = pending
    }
}
