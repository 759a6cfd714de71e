import SchemaRuntime

/// Rows and links of several tables read together (``StoreBackend/read(_:)``): what a
/// store catching up with other stores' commits reads once it has their log entries. A
/// server answers them in one round trip, where one per table would keep a write that
/// catches up under the writers' lock waiting on each.
struct BatchedRead {
    /// Rows by id (``StoreBackend/rows(_:ids:)``), answered under `name`.
    var rows: [(name: String, entity: any AnyEntityPersister, ids: [StoredValue])] = []
    /// Whole link slots (``StoreBackend/targets(_:owners:)``), answered under `name`.
    var targets: [(name: String, link: LinkLayout, owners: [StoredValue])] = []
    /// The last targets of to-many slots (``StoreBackend/lastTargets(_:owners:)``),
    /// answered under `name` beside its whole slots.
    var lastTargets: [(name: String, link: LinkLayout, owners: [(owner: StoredValue, count: Int)])] = []

    /// The rows and targets read, keyed as asked; a name asked for is present even when
    /// nothing was found.
    struct Answer {
        var rows: [String: [StoredValue: [StoredValue]]] = [:]
        var targets: [String: [StoredValue: [StoredValue]]] = [:]
    }
}

extension StoreBackend {
    /// One request after another: right where a read costs no round trip (SQLite).
    func read(_ request: BatchedRead) throws -> BatchedRead.Answer {
        var answer = BatchedRead.Answer()
        for (name, entity, ids) in request.rows { answer.rows[name, default: [:]].merge(try rows(entity, ids: ids)) { $1 } }
        for (name, link, owners) in request.targets { answer.targets[name, default: [:]].merge(try targets(link, owners: owners)) { $1 } }
        for (name, link, owners) in request.lastTargets {
            answer.targets[name, default: [:]].merge(try lastTargets(link, owners: owners)) { $1 }
        }
        return answer
    }
}
