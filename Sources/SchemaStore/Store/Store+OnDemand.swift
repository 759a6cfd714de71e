import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// A store opened ``Store/Residency/onDemand``: SQL answers its queries, and its writes
/// read what they touch (``OnDemandWrite``).
extension Store {
    /// Whether the store reads through SQL (``Residency/onDemand`` for a store on a file,
    /// over packs or not, or on a server).
    public var readsOnDemand: Bool {
        onDemand != nil && !isResident
    }

    /// What the on-demand snapshots did: queries answered from rows SQL selected, the
    /// statements they ran, counts SQL answered alone, and queries SQL could not narrow
    /// (answered on the whole graph, read once per snapshot), and the statements writes ran
    /// to read what they touched. Zero for a resident store.
    public var onDemandStatistics: OnDemandStatistics {
        onDemand?.statistics ?? OnDemandStatistics()
    }

    /// How many connections the store's on-demand snapshots hold or keep idle (for tests).
    @_spi(SchemaStoreTesting)
    public var readConnectionCount: Int { onDemand?.connectionCount ?? 0 }

    /// The statistics ranked `matches` queries on the first full-text index of `type` use
    /// for the words of `query`, as the current snapshot's SQL keeps them (for tests); nil for
    /// a resident store or a file without postings.
    @_spi(SchemaStoreTesting)
    public func fullTextStatistics<Entity: EntityModelProtocol>(of type: Entity.Type, matching query: String) throws -> FullTextStatistics? {
        guard readsOnDemand, let onDemand, let index = layout.persisterByTable[ObjectIdentifier(type)]?.fullTextIndexes.first else { return nil }
        return try onDemand.currentSnapshot().fullTextStatistics(index, tokens: TextTokenizer.tokens(query))
    }

    /// The SQL an on-demand store runs first for `query` (the rows it reads, with bound
    /// values as placeholders) and the database's plan for it (SQLite's `EXPLAIN QUERY PLAN`,
    /// PostgreSQL's `EXPLAIN`); nil for a resident store, or a query SQL does not narrow (it
    /// runs on the whole graph). For a sorted, limited `related(_:)` list read in steps on
    /// SQLite, the walk down the sort's index, which runs once a first statement found the
    /// list long.
    public func explainSQL<Entity: EntityModelProtocol>(_ query: QueryList<Entity>) -> (sql: String, plan: [String])? {
        guard readsOnDemand, let onDemand, let (text, plan) = onDemand.sql(for: query) else { return nil }
        return (text, plan)
    }
}
