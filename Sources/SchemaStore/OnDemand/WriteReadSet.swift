@_spi(SchemaStore) import SchemaRuntime

/// What a write on demand read before it took the write lock (``OnDemandWrite``), named as
/// the ``CommitLog`` names what commits change, so that its commit can check under the lock
/// that no commit since its first read changed any of it
/// (``StoreBackend/transactionValidatingReads(_:_:)``).
///
/// Reads by id (an entity's row and links, an archive) name their ids; reads by a condition
/// (a query's filter, whether a table is empty) name their whole table, which any commit
/// touching it changes. Conservative: a commit may change a name without changing what was
/// read there (another field, another row the filter skips), which only costs a retry.
struct WriteReadSet: Sendable, Equatable {
    /// Per name (an entity, a link table, an archived entity): the ids read there.
    private(set) var ids: [String: Set<StoredValue>] = [:]
    /// Names read by a condition: every id there counts as read.
    private(set) var wholeNames: Set<String> = []

    var isEmpty: Bool { ids.isEmpty && wholeNames.isEmpty }

    /// Notes the reads of `ids` under `name`. O(ids). Past ``idsPerName`` there, the whole
    /// name counts as read: a write reading that many (an import) is checked at the grain
    /// of its tables, and its check stays small.
    mutating func read(_ ids: some Sequence<StoredValue>, of name: String) {
        guard !wholeNames.contains(name) else { return }
        ids.forEach { self.ids[name, default: []].insert($0) }
        if self.ids[name, default: []].count > Self.idsPerName { readAll(of: name) }
    }

    /// The most ids noted under one name (``read(_:of:)``).
    static let idsPerName = 10_000

    /// Notes a read of everything `name` holds (its ids read before need no check of their own).
    mutating func readAll(of name: String) {
        wholeNames.insert(name)
        ids[name] = nil
    }

    /// Every id read, as pairs of parallel arrays (names repeated), in a stable order.
    var pairs: (names: [String], ids: [StoredValue]) {
        var names: [String] = [], values: [StoredValue] = []
        for name in ids.keys.sorted() {
            for id in ids[name]! {
                names.append(name)
                values.append(id)
            }
        }
        return (names, values)
    }
}
