/// The relations a query follows from the entities it reads: for a store that reads on
/// demand, what to load besides the queried rows (the links of these slots, the rows they
/// link to, and onward from there).
///
/// Nested queries (`with`, `id`, bulk levels) and relation conditions (`any`, `all`, `none`,
/// `related`, `linkCount`) record their edges as they are built; a query's reach is the
/// union of its predicate's and its nesting's.
public struct ReadReach: Sendable {
    /// One relation followed from the entities of `source`.
    public struct Edge: Sendable {
        /// The entity type whose slot is read.
        public let source: ObjectIdentifier
        public let slot: LinkSlot
        /// The entity type linked to; its rows are read too.
        public let target: ObjectIdentifier
        /// What is followed from the linked entities.
        public var onward: ReadReach

        @usableFromInline
        init(source: ObjectIdentifier, slot: LinkSlot, target: ObjectIdentifier, onward: ReadReach = ReadReach()) {
            self.source = source
            self.slot = slot
            self.target = target
            self.onward = onward
        }
    }

    public internal(set) var edges: [Edge] = []
    @usableFromInline var mutableEdges: [Edge] { get { edges } set { edges = newValue } }

    @usableFromInline init() {}

    @usableFromInline init(_ edges: [Edge]) { self.edges = edges }

    /// The union of two reaches.
    @usableFromInline
    func merged(with other: ReadReach) -> ReadReach {
        ReadReach(edges + other.edges)
    }

    /// The edges of every relation of `type`, `depth` levels deep (a bulk nested query).
    static func allRelations(of type: any EntityModelProtocol.Type, depth: Int) -> ReadReach {
        func edges<Source: EntityModelProtocol>(_: Source.Type) -> [Edge] {
            guard depth > 0 else { return [] }
            return Source.relations.map { relation in
                Edge(source: ObjectIdentifier(Source.self), slot: relation.slot, target: relation.targetTable,
                     onward: allRelations(of: relation.target, depth: depth - 1))
            }
        }
        return ReadReach(edges(type))
    }
}

extension EntityPredicate.Node {
    /// What evaluating the node reads besides the entity's row: its relation conditions' edges.
    var readReach: ReadReach {
        switch self {
        case .related(let condition): ReadReach([condition.reach])
        case .comparison, .text, .updated, .custom: ReadReach()
        case .and(let nodes), .or(let nodes): nodes.reduce(ReadReach()) { $0.merged(with: $1.readReach) }
        case .not(let inner): inner.readReach
        }
    }
}
