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
}
