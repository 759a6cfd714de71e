@_spi(SchemaStore) import SchemaRuntime

/// Where the links of each relation slot are read from: its own link table, or (for the
/// to-one side of a mutual pair that is not stored) the other side's table read backwards.
struct LinkLookup: Sendable {
    struct Slot: Hashable, Sendable {
        let table: ObjectIdentifier
        let slot: LinkSlot
    }

    enum Source: Sendable {
        case stored(LinkLayout)
        /// The slot is the inverse of this link table's slot: owners are its targets.
        case inverse(LinkLayout)
    }

    private let sources: [Slot: Source]

    init(_ layout: StoreLayout) {
        var sources: [Slot: Source] = [:]
        for link in layout.links {
            sources[Slot(table: link.owner, slot: link.slot)] = .stored(link)
        }
        for link in layout.links {
            guard let inverse = link.derivedInverse else { continue }
            let slot = Slot(table: link.target, slot: inverse)
            if sources[slot] == nil { sources[slot] = .inverse(link) }
        }
        self.sources = sources
    }

    func source(of slot: LinkSlot, in table: ObjectIdentifier) -> Source? {
        sources[Slot(table: table, slot: slot)]
    }

    /// The stored links of `slot` of the entities `ids` of `table`, as (owner, target) id
    /// pairs grouped by owner, a to-many slot's in link order (one statement), with where
    /// they were read from. Nil for a slot no link table keeps.
    func pairs(of slot: LinkSlot, in table: ObjectIdentifier, ids: [StoredValue],
               backend: any SnapshotConnection) throws -> (source: Source, pairs: [(owner: StoredValue, target: StoredValue)])? {
        guard let (source, select) = select(of: slot, in: table, ids: ids) else { return nil }
        var pairs: [(owner: StoredValue, target: StoredValue)] = []
        try backend.rows(select) { pairs.append(($0[0], $0[1])) }
        return (source, pairs)
    }

    /// The statement ``pairs(of:in:ids:backend:)`` runs (each of its rows an owner and a
    /// target), with where it reads; nil for a slot no link table keeps.
    func select(of slot: LinkSlot, in table: ObjectIdentifier, ids: [StoredValue]) -> (source: Source, select: SQLSelect)? {
        guard let source = source(of: slot, in: table) else { return nil }
        switch source {
        case .stored(let link):
            var order = [SQLOrderTerm(expression: .column("owner"), descending: false)]
            if link.isToMany { order.append(SQLOrderTerm(expression: .column("position"), descending: false)) }
            return (source, SQLSelect(output: .columns([.column("owner"), .column("target")]), table: link.name,
                                      filter: .oneOf(.column("owner"), ids), order: order))
        case .inverse(let link):
            // The owners of this slot are the link table's targets.
            return (source, SQLSelect(output: .columns([.column("target"), .column("owner")]), table: link.name,
                                      filter: .oneOf(.column("target"), ids),
                                      order: [SQLOrderTerm(expression: .column("target"), descending: false)]))
        }
    }

    /// The ranges of `owners` holding one owner each (pairs come grouped by owner), in order.
    static func runs(_ owners: [Int32]) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start = 0
        while start < owners.count {
            var end = start + 1
            while end < owners.count && owners[end] == owners[start] { end += 1 }
            runs.append(start..<end)
            start = end
        }
        return runs
    }
}
