import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// One moment of a store file, answering queries through SQL: the ``ContextReader`` behind
/// the contexts of a store opened ``Store/Residency/onDemand``.
///
/// It holds a read transaction on a connection of its own, so it sees the file as it was
/// when it was taken, whatever is committed meanwhile (WAL); it ends when the last context
/// holding it is gone. For each query it reads, through SQL, the rows the query may return
/// and what the query follows from them (``SubgraphLoader``), and the query runs on that
/// context as on a resident graph: results and order are the same by construction.
///
/// SQL narrows the rows with the compiled filter (``PredicateCompiler``); when the filter is
/// exact and the sort is one SQL orders as Swift does, SQL also sorts, limits and counts.
/// A query it cannot narrow (a source it does not know, ranked full-text `matches`, a
/// soft-deleted archive) runs on the whole graph, read once per snapshot.
final class OnDemandSnapshot: ContextReader, @unchecked Sendable {
    private let layout: StoreLayout
    private let links: LinkLookup
    private let backend: any SnapshotConnection
    /// Serializes the connection: contexts are values any thread may query.
    private let lock = NSLock()
    /// The whole graph, read on first need by a query SQL cannot narrow.
    private var wholeGraph: Context?
    /// What the queries so far read, for the next ones (``SubgraphLoader/Cache``), while it
    /// holds at most `cachedRows` rows; under `lock`.
    private var cache = SubgraphLoader.Cache()
    private let cachedRows: Int
    /// The answers of `count()` queries so far, by the count they are (at most
    /// ``countedLimit``); kept with the rows. Under `lock`.
    private var counts: [SQLSelect: Int] = [:]
    private static let countedLimit = 256
    /// What the snapshot did, for tests and ``Store/onDemandStatistics``; under `lock`.
    private var counters = OnDemandStatistics()
    var statistics: OnDemandStatistics {
        lock.withLock {
            var counted = counters
            counted.roundTrips += backend.roundTrips - roundTripsBefore
            return counted
        }
    }

    /// What a snapshot leaves for the next one: the rows its queries read, and the commit
    /// they are the rows of. A snapshot of the same commit starts from them.
    struct KeptRows: Sendable {
        let commit: Int64
        let cache: SubgraphLoader.Cache
        let counts: [SQLSelect: Int]
    }

    /// Given back the connection, the statistics and the rows to keep when the snapshot ends.
    private let end: @Sendable (any SnapshotConnection, OnDemandStatistics, KeptRows?) -> Void
    /// For the snapshot of a ``Store/read(_:)`` scope: where failed reads go.
    private let failures: ReadFailures?
    /// Otherwise, who hears of failed reads that then answer empty
    /// (``Store/ContextReadFailure/answerEmpty(report:)``); nil stops the process.
    private let reportFailure: (@Sendable (any Error) -> Void)?
    /// The commit the snapshot sees, when the database logs commits (for a snapshot taken
    /// with its first read, known once that read was answered).
    private var commit: Int64?
    /// For a snapshot taken with its first read, until that read was answered: what it may
    /// start from, and what it checks then (``tookFirstAnswer()``). Under `lock`.
    private var firstRead: FirstRead?
    /// Whether the database holds another schema than the store's, found by the snapshot's
    /// first read: every query answers empty, as a context taken after another store
    /// migrated the database does. Under `lock`.
    private var answersEmpty = false
    /// The connection's round trips before the snapshot began (``OnDemandStatistics/roundTrips``).
    private let roundTripsBefore: Int

    /// What a store gives a snapshot it takes with its first read.
    struct FirstReadTerms {
        /// The fingerprint the store opened with.
        let fingerprint: String?
        /// Whether to start from the newest kept rows, taking their commit for its own.
        let startsFromKeptRows: Bool
        /// Told when the database records another fingerprint (a migration by another store).
        let schemaChanged: @Sendable () -> Void
        /// Told, when it started from kept rows, whether they were of its commit.
        let keptRowsHeld: @Sendable (Bool) -> Void
    }

    /// What a snapshot taken with its first read checks once that read was answered.
    private struct FirstRead {
        let terms: FirstReadTerms
        /// What earlier snapshots read, each the rows of its commit.
        let kept: [KeptRows]
        /// The commit of the kept rows the snapshot started from, taken for its own; nil
        /// when it started from none.
        let assumed: Int64?
    }
    /// The last `cache` of this snapshot, readable without `lock` (``keptRows``); under
    /// `publishing`.
    private var published: KeptRows?
    private let publishing = NSLock()

    /// A snapshot on `backend` (a read-only connection, not in a transaction), which `end`
    /// gets back when the snapshot ends. It starts from the first of `kept`, what earlier
    /// snapshots read, that saw the same commit.
    ///
    /// With `firstRead` (the store's fingerprint, and whom to tell when the database records
    /// another), a server takes the snapshot with its first read, in that read's round trip
    /// (``SnapshotConnection/beginSnapshotWithFirstRead()``): one round trip fewer for a
    /// `read` scope. Its commit is known, and the fingerprint checked, once that read was
    /// answered. Until then it starts from no kept rows, or, when the store says so
    /// (`startsFromKeptRows`: they were of the commit of late), from the newest, taking their
    /// commit for its own: a read they answer whole sends nothing, and the snapshot is then
    /// taken alone, as without a first read; a read answered from them and found to be of
    /// another commit runs again without them (``tookFirstAnswer()``), and the store learns
    /// it. ``awaitsFirstRead`` says whether it was taken so.
    init(backend: any SnapshotConnection, layout: StoreLayout, links: LinkLookup, failures: ReadFailures? = nil,
         reportFailure: (@Sendable (any Error) -> Void)? = nil, cachedRows: Int = 0,
         resuming kept: [KeptRows] = [], firstRead: FirstReadTerms? = nil,
         end: @escaping @Sendable (any SnapshotConnection, OnDemandStatistics, KeptRows?) -> Void) throws {
        self.layout = layout
        self.links = links
        self.cachedRows = cachedRows
        self.backend = backend
        self.failures = failures
        self.reportFailure = reportFailure
        self.end = end
        roundTripsBefore = backend.roundTrips
        do {
            if firstRead != nil { try backend.beginSnapshotWithFirstRead() } else { try backend.beginSnapshot() }
        } catch {
            backend.close()
            throw error
        }
        if let firstRead, backend.snapshotAwaitsFirstRead {
            let newest = firstRead.startsFromKeptRows ? kept.max { $0.commit < $1.commit } : nil
            if let newest { (cache, counts) = (newest.cache, newest.counts) }
            self.firstRead = FirstRead(terms: firstRead, kept: kept, assumed: newest?.commit)
            return
        }
        commit = backend.snapshotCommit
        if let match = kept.first(where: { $0.commit == commit }) { (cache, counts) = (match.cache, match.counts) }
    }

    /// Whether the snapshot waits for its first read to be taken (``init(backend:layout:links:failures:reportFailure:cachedRows:resuming:firstRead:end:)``).
    var awaitsFirstRead: Bool { lock.withLock { firstRead != nil } }

    /// What a snapshot taken with its first read found once that read was answered.
    private enum FirstAnswer {
        /// The answer stands.
        case held
        /// The database records another fingerprint: the answer is the empty one.
        case otherSchema
        /// The rows it started from were another commit's: the read runs again.
        case startedFromAnotherCommit
    }

    /// For a snapshot taken with its first read, once that read ran (taking the snapshot
    /// alone first if the read sent nothing): its commit; whether the database still records
    /// the store's fingerprint (if not, every query answers empty from this one on, and the
    /// store is told); and whether the kept rows it started from are of its commit (if not,
    /// it starts again from those of its commit, or none). A snapshot that started from none
    /// takes those of its commit for its next reads. Called holding `lock`.
    private func tookFirstAnswer() throws -> FirstAnswer {
        guard let first = firstRead else { return .held }
        // Read from the snapshot's state; if the read sent nothing (kept rows answered it),
        // reading it takes the snapshot now.
        let recorded = try backend.currentFingerprint()
        firstRead = nil
        commit = backend.snapshotCommit
        guard recorded == first.terms.fingerprint else {
            answersEmpty = true
            first.terms.schemaChanged()
            return .otherSchema
        }
        let match = first.kept.first { $0.commit == commit }
        if let assumed = first.assumed {
            first.terms.keptRowsHeld(assumed == commit)
            if assumed != commit {
                (cache, counts) = (match?.cache ?? SubgraphLoader.Cache(), match?.counts ?? [:])
                publish()
                return .startedFromAnotherCommit
            }
        } else if let match, match.cache.rows >= cache.rows {
            cache = match.cache
            counts.merge(match.counts) { mine, _ in mine }
        }
        publish()
        return .held
    }

    deinit {
        backend.endSnapshot()
        counters.roundTrips += backend.roundTrips - roundTripsBefore
        end(backend, counters, commit.map { KeptRows(commit: $0, cache: cache, counts: counts) })
    }

    /// The schema fingerprint the file records, as this snapshot reads it.
    func recordedFingerprint() throws -> String? {
        try lock.withLock { try backend.currentFingerprint() }
    }

    // MARK: ContextReader

    func materialize<Entity: EntityModelProtocol>(_ list: QueryList<Entity>, in context: Context) -> (QueryList<Entity>, Context) {
        reading(else: (list, Context())) { try plan(list) }
    }

    func materialize<Entity: EntityModelProtocol>(_ query: Query<Entity>, in context: Context) -> Context {
        reading(else: Context()) {
            guard let entity = layout.persisterByTable[ObjectIdentifier(Entity.self)], let id = query.namedID,
                  let stored = (id as? any StorableValue)?.storedValue else { return try whole() }
            var loader = SubgraphLoader(layout: layout, links: links, backend: backend, resuming: cache)
            _ = try loader.loadRows(entity, ids: [stored], following: query.readReach)
            record(loader)
            return loader.context
        }
    }

    func count<Entity: EntityModelProtocol>(_ list: QueryList<Entity>, in context: Context) -> Int? {
        reading(else: 0) {
            guard let entity = layout.persisterByTable[ObjectIdentifier(Entity.self)], list.readsAll, list.isPlainFilterSortLimit,
                  list.limitCount == nil, list.offsetCount == 0 else { return nil }
            let compiled = filter(of: list, PredicateCompiler(entity: entity, dialect: backend.dialect))
            guard compiled.isExact else { return nil }
            // The snapshot never changes: a count asked again is the count it was.
            return try kept(count: SQLSelect(output: .count, table: entity.tableName, filter: compiled.filter)) { _ in
                try countRows(list, entity: entity, filter: compiled.filter)
            }
        }
    }

    /// The rows `filter` keeps, counted in SQL.
    private func countRows<Entity: EntityModelProtocol>(_ list: QueryList<Entity>, entity: any AnyEntityPersister,
                                                       filter: SQLExpression) throws -> Int {
        counters.counts += 1
        // A full-text match counts among the entities its postings name (the filter still
        // decides each), not by deciding it on every row.
        if let (index, tokens) = try fullTextMatch(list, entity: entity), !tokens.isEmpty {
            let ids = try backend.fullTextIDs(index, of: entity, tokens: tokens)
            var total = 0
            for batch in SubgraphLoader.batches(ids) {
                total += try backend.integer(SQLSelect(output: .count, table: entity.tableName,
                                                       filter: .all([.oneOf(.column(entity.columns[0].name), batch), filter])))
            }
            return total
        }
        return try backend.integer(SQLSelect(output: .count, table: entity.tableName, filter: filter))
    }

    func materializeEverything(in context: Context) -> Context {
        reading(else: Context()) { try whole() }
    }

    func count<Entity: EntityModelProtocol>(of type: Entity.Type, in context: Context) -> Int {
        reading(else: 0) {
            guard let entity = layout.persisterByTable[ObjectIdentifier(Entity.self)] else { return try whole().count(of: type) }
            return try kept(count: SQLSelect(output: .count, table: entity.tableName)) { try backend.integer($0) }
        }
    }

    /// The answer of the count `select`: kept from when it was asked at this commit, else
    /// `counting` it (then kept). Called holding `lock`.
    private func kept(count select: SQLSelect, _ counting: (SQLSelect) throws -> Int) rethrows -> Int {
        if let known = counts[select] { return known }
        let total = try counting(select)
        if counts.count >= Self.countedLimit { counts.removeAll() }
        counts[select] = total
        publish()
        return total
    }

    // MARK: Planning

    /// The SQL this snapshot runs first for `list`, and the database's plan for it (`explain()`).
    func sql<Entity: EntityModelProtocol>(for list: QueryList<Entity>) -> (text: String, plan: [String])? {
        reading(else: nil) {
            guard let entity = layout.persisterByTable[ObjectIdentifier(Entity.self)] else { return nil }
            let first = candidates(list, entity: entity, qualified: joinsFollows(list, entity: entity)).map { select, ordered in
                ordered ? filtered(select, entity: entity).explained : select
            } ?? list.linkOrigin.flatMap { joined(list, entity: entity, origin: $0) }?.explained
            guard let first else { return nil }
            // As it runs: with what the list follows joined to it.
            let select = SubgraphLoader(layout: layout, links: links, backend: backend, resuming: cache)
                .selectReading(entity, first, following: list.readReach).0
            return (SQLRenderer.render(select, in: backend.dialect).text, try backend.queryPlan(select))
        }
    }

    /// Counts what `loader` did, and keeps what it read for the next query while that stays
    /// within `cachedRows`.
    private func record(_ loader: SubgraphLoader) {
        counters.record(loader)
        guard loader.cache.rows <= cachedRows else { return }
        cache = loader.cache
        publish()
    }

    /// Makes what the snapshot read so far the ``keptRows``.
    private func publish() {
        if let commit { publishing.withLock { published = KeptRows(commit: commit, cache: cache, counts: counts) } }
    }

    /// What the snapshot read so far, for a new snapshot of the same commit taken while this
    /// one lives (``OnDemandReading``). Apart from `lock`, which a query holds while it reads.
    var keptRows: KeptRows? { publishing.withLock { published } }

    private func plan<Entity: EntityModelProtocol>(_ list: QueryList<Entity>) throws -> (QueryList<Entity>, Context) {
        guard let entity = layout.persisterByTable[ObjectIdentifier(Entity.self)] else { return (list, try whole()) }
        var loader = SubgraphLoader(layout: layout, links: links, backend: backend, resuming: cache)
        if let (ids, statistics) = try fullTextCandidates(list, entity: entity) {
            let compiler = PredicateCompiler(entity: entity, qualified: loader.qualifiesColumns, dialect: backend.dialect)
            let keys = try loader.loadRows(entity, ids: ids, filter: filter(of: list, compiler).filter, following: list.readReach)
            record(loader)
            // Ranked against the whole table, as a resident full-text index would rank them.
            var context = loader.context
            context.setFullTextStatistics(statistics, for: Entity.self)
            return (list.reading(keys: keys, offsetApplied: false), context)
        }
        if let (select, ordered) = candidates(list, entity: entity, qualified: joinsFollows(list, entity: entity)) {
            let keys = ordered ? try loader.loadRows(entity, filtered(select, entity: entity), following: list.readReach)
                : try loader.loadRows(entity, select, following: list.readReach)
            record(loader)
            // An ordered select is the answer; otherwise Swift filters and sorts its candidates.
            return (ordered ? list.answered(by: keys) : list.reading(keys: keys, offsetApplied: false), loader.context)
        }
        // A ranked list of linked or listed entities ranks them against the whole table's
        // statistics, from its full-text postings; without them it runs on the whole graph.
        let ranked = ranks(list)
        let statistics = ranked ? try rankingStatistics(list, entity: entity) : nil
        func ranking(_ context: Context) -> Context {
            guard let statistics else { return context }
            var context = context
            context.setFullTextStatistics(statistics, for: Entity.self)
            return context
        }
        if let origin = list.linkOrigin, !ranked || statistics != nil, let owner = layout.persisterByTable[origin.table] {
            if !ranked, let read = joined(list, entity: entity, origin: origin) {
                let keys = try loader.loadRows(entity, read, following: list.readReach)
                record(loader)
                return (list.answered(by: keys), loader.context)
            }
            // The owner's links, whole, then the linked rows the filter may keep: the list
            // reads them through the links, in link order.
            let keys = try loader.loadLinked(origin.slot, of: origin.id, owner: owner, target: entity,
                                             filter: filter(of: list, PredicateCompiler(entity: entity, dialect: backend.dialect)).filter)
            try loader.follow(list.readReach, from: keys, of: entity.table)
            record(loader)
            return (list, ranking(loader.context))
        }
        if let ids = list.listedIDs, !ranked || statistics != nil, let stored = storedValues(ids) {
            let compiler = PredicateCompiler(entity: entity, qualified: loader.qualifiesColumns, dialect: backend.dialect)
            _ = try loader.loadRows(entity, ids: stored, filter: filter(of: list, compiler).filter, following: list.readReach)
            record(loader)
            // The list names its rows by id, in its own order.
            return (list, ranking(loader.context))
        }
        return (list, try whole())
    }

    /// For a query over every entity whose filter requires a full-text match (`matches`, alone
    /// or in an `&&`) on exactly the fields of a full-text index the file keeps in SQL
    /// (``FullTextLayout``): the ids of the entities holding every query word, in storage
    /// order, and the index's statistics, so ranking scores as over the whole table.
    private func fullTextCandidates<Entity: EntityModelProtocol>(_ list: QueryList<Entity>,
                                                                 entity: any AnyEntityPersister) throws -> ([StoredValue], FullTextStatistics)? {
        guard list.readsAll, let (index, tokens) = try fullTextMatch(list, entity: entity), !tokens.isEmpty else { return nil }
        counters.fullTextReads += 1
        return (try backend.fullTextIDs(index, of: entity, tokens: tokens), try backend.fullTextStatistics(index, tokens: tokens))
    }

    /// For a ranked query: the whole table's statistics for its `matches` condition, from the
    /// postings of a full-text index on exactly its fields; nil without such postings.
    private func rankingStatistics<Entity: EntityModelProtocol>(_ list: QueryList<Entity>,
                                                                entity: any AnyEntityPersister) throws -> FullTextStatistics? {
        guard let (index, tokens) = try fullTextMatch(list, entity: entity) else { return nil }
        counters.fullTextReads += 1
        return try backend.fullTextStatistics(index, tokens: tokens)
    }

    /// The full-text index the file keeps in SQL on exactly the fields of the `matches`
    /// condition every result of `list` must satisfy, with the condition's query words.
    private func fullTextMatch<Entity>(_ list: QueryList<Entity>, entity: any AnyEntityPersister) throws -> (FullTextLayout, [String])? {
        guard let predicate = list.filterPredicate, let (keyPaths, query) = Self.requiredMatch(predicate.structure),
              let index = entity.fullTextIndexes.first(where: { $0.keyPaths == keyPaths }), try backend.hasFullText(index) else { return nil }
        return (index, TextTokenizer.tokens(query))
    }

    /// A `matches` condition every result must satisfy: the filter itself, or one of an `&&`.
    private static func requiredMatch(_ structure: PredicateStructure) -> (keyPaths: [AnyKeyPath], query: String)? {
        switch structure {
        case .text(let keyPaths, .matches, let query, _): (keyPaths, query)
        case .and(let parts): parts.lazy.compactMap(requiredMatch).first
        default: nil
        }
    }

    /// For a query over every entity: the select reading its candidate rows, and whether it
    /// also applies the query's order, limit and offset (an exact filter, a sort SQL orders
    /// as Swift does, nothing else shaping the result).
    private func candidates<Entity: EntityModelProtocol>(_ list: QueryList<Entity>, entity: any AnyEntityPersister,
                                                         qualified: Bool) -> (SQLSelect, ordered: Bool)? {
        guard list.readsAll, !ranks(list) else { return nil }
        let compiler = PredicateCompiler(entity: entity, qualified: qualified, dialect: backend.dialect)
        let compiled = filter(of: list, compiler)
        let table = qualified ? entity.tableName : nil
        let storage = SQLOrderTerm(expression: .storageOrder(table: table), descending: false)
        var select = SQLSelect(output: .columns(entity.columns.map { .column($0.name, table: table) }), table: entity.tableName,
                               filter: compiled.filter, order: [storage])
        guard compiled.isExact, list.isPlainFilterSortLimit, let order = compiler.order(list.sortFields) else { return (select, false) }
        // Rows that sort equal keep storage order, as they keep context order in Swift.
        select.order = order + [storage]
        select.limit = list.limitCount
        select.offset = list.offsetCount
        return (select, true)
    }

    /// For a list of the entities one entity links to: the read of exactly its rows in its
    /// order (link order breaking ties), limited, through the link table, when the filter is
    /// exact and SQL orders the sort as Swift does.
    private func joined<Entity: EntityModelProtocol>(_ list: QueryList<Entity>, entity: any AnyEntityPersister,
                                                     origin: RelatedOrigin) -> RelatedListRead? {
        // Over packs, SQLite joins two unions by reading one of them whole, and sorting and
        // limiting each select of the entity's union scans the selects that hold none of the
        // owner's links: the owner's links are read instead, then their rows by id (O(links)).
        guard backend.packUnion == nil else { return nil }
        guard case .stored(let link) = links.source(of: origin.slot, in: origin.table), link.isToMany, list.isPlainFilterSortLimit,
              case let compiler = PredicateCompiler(entity: entity, qualified: true, dialect: backend.dialect),
              case let compiled = filter(of: list, compiler), compiled.isExact,
              let order = compiler.order(list.sortFields) else { return nil }
        let table = entity.tableName
        let owner = SQLExpression.identical(.column("owner", table: link.name), .value(origin.id))
        let select = SQLSelect(output: .columns(entity.columns.map { .column($0.name, table: table) }), table: table,
                               join: SQLSelect.Join(table: link.name, on: .compare(.column("target", table: link.name), .equal,
                                                                                     .column(entity.columns[0].name, table: table))),
                               filter: .all([owner, compiled.filter]),
                               order: order + [SQLOrderTerm(expression: .column("position", table: link.name), descending: false)],
                               limit: list.limitCount, offset: list.offsetCount)
        return RelatedListRead(select, owner: owner, entity: entity, dialect: backend.dialect) { (try? backend.hasSQLIndex($0)) ?? false }
    }

    /// The read of `select` (a filtered, sorted list of `entity`'s rows), in steps where
    /// that bounds it (``FilteredListRead``).
    private func filtered(_ select: SQLSelect, entity: any AnyEntityPersister) -> FilteredListRead {
        FilteredListRead(select, entity: entity, dialect: backend.dialect) { (try? backend.hasSQLIndex($0)) ?? false }
    }

    /// Whether the select of `list`'s rows may read what it follows too (``SubgraphLoader/selectReading(_:_:following:)``):
    /// its columns then name their table.
    private func joinsFollows<Entity>(_ list: QueryList<Entity>, entity: any AnyEntityPersister) -> Bool {
        backend.joinsToOneFollows && backend.packUnion == nil && list.readReach.edges.contains { $0.source == entity.table }
    }

    /// The list's filter compiled by `compiler`; no filter keeps every row, exactly.
    private func filter<Entity>(of list: QueryList<Entity>, _ compiler: PredicateCompiler) -> PredicateCompiler.Compiled {
        guard let predicate = list.filterPredicate else { return PredicateCompiler.Compiled(filter: .boolean(true), isExact: true) }
        return compiler.compile(predicate.structure)
    }

    private func ranks<Entity>(_ list: QueryList<Entity>) -> Bool { list.ranksByRelevance }

    private func storedValues<ID>(_ ids: [ID]) -> [StoredValue]? {
        var values: [StoredValue] = []
        for id in ids {
            guard let value = (id as? any StorableValue)?.storedValue else { return nil }
            values.append(value)
        }
        return values
    }

    /// The whole graph at this snapshot, read once.
    private func whole() throws -> Context {
        if let wholeGraph { return wholeGraph }
        let graph = try backend.packUnion.map { try UnionGraphLoader(layout: layout, backend: backend, union: $0).load() }
            ?? GraphLoader(layout: layout, backend: backend).load()
        counters.wholeGraphReads += 1
        wholeGraph = graph
        return graph
    }

    /// The BM25 statistics SQL keeps for `index` and `tokens`; nil where the file keeps no
    /// postings for it.
    func fullTextStatistics(_ index: FullTextLayout, tokens: [String]) throws -> FullTextStatistics? {
        try lock.withLock { try backend.hasFullText(index) ? backend.fullTextStatistics(index, tokens: tokens) : nil }
    }

    /// The whole graph at this snapshot (read once, then kept while the snapshot lives).
    func everything() throws -> Context {
        try lock.withLock { try whole() }
    }

    /// Runs `body` on the snapshot's connection (for reads the ``ContextReader`` does not
    /// make, such as a pack's edits).
    func withConnection<Result>(_ body: (any SnapshotConnection) throws -> Result) throws -> Result {
        try lock.withLock { try body(backend) }
    }

    // MARK: The commit log

    /// The log entries of the commits after `commit` the snapshot holds, in commit order.
    func commits(after commit: Int64) throws -> [(commit: Int64, entry: CommitLog.Entry)] {
        try lock.withLock { try backend.commits(after: commit) }
    }

    /// The number of the last commit the snapshot holds (0 before the first).
    func lastCommit() throws -> Int64 {
        try lock.withLock { try backend.lastCommit() ?? 0 }
    }

    /// Runs `body` on the connection. Queries do not throw: a snapshot whose database cannot
    /// be read any more (an I/O error under a held read transaction, a row that no longer
    /// decodes, a server gone) stops the process with the error rather than answering
    /// wrongly, unless it belongs to an open ``Store/read(_:)`` scope, which keeps the error
    /// and throws it at its end, or its store's contexts answer empty
    /// (``Store/Options/contextReadFailure``), which reports it; the query then answers
    /// `fallback`: nobody sees it, or it is the empty answer reported.
    private func reading<Result>(else fallback: @autoclosure () -> Result, _ body: () throws -> Result) -> Result {
        let outcome: Swift.Result<Result, any Error> = lock.withLock {
            guard !answersEmpty else { return .success(fallback()) }
            do {
                do {
                    let result = try body()
                    switch try tookFirstAnswer() {
                    case .held: return .success(result)
                    case .otherSchema: return .success(fallback())
                    case .startedFromAnotherCommit: return .success(try body())
                    }
                } catch {
                    if firstRead != nil, backend.snapshotAwaitsFirstRead {
                        // The first read failed, and the snapshot's BEGIN with it (a
                        // connection the server dropped while idle, or a table another
                        // store's migration changed): taken again on its own, which opens a
                        // new connection if needed and reads the fingerprint first.
                        backend.endSnapshot()
                        try backend.beginSnapshot()
                        guard try tookFirstAnswer() != .otherSchema else { return .success(fallback()) }
                        return .success(try body())
                    }
                    // The same state on a new connection (a server's, lost while nothing
                    // was committed): the read runs again there.
                    guard try backend.resumeSnapshot() else { throw error }
                    return .success(try body())
                }
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .success(let result):
            return result
        case .failure(let error):
            if let failures, failures.record(error) { return fallback() }
            guard let reportFailure else { preconditionFailure("SchemaStore: reading \(backend.location) failed: \(error)") }
            // Outside the lock: the reporter may read the store again.
            reportFailure(error)
            return fallback()
        }
    }
}

/// What on-demand snapshots did: how queries were answered.
public struct OnDemandStatistics: Sendable, Hashable {
    /// Queries answered from rows SQL selected.
    public var materializations = 0
    /// Queries whose candidates and ranking statistics came from full-text postings in SQL.
    public var fullTextReads = 0
    /// SQL statements those ran.
    public var statements = 0
    /// Counts SQL answered alone.
    public var counts = 0
    /// Queries SQL could not narrow, answered on the whole graph (read once per snapshot).
    public var wholeGraphReads = 0
    /// Round trips to a server the snapshots made, taking their state and reading (0 for a
    /// file). A snapshot taken with its first read makes one fewer.
    public var roundTrips = 0
    /// Writes that ran on demand, and the SQL statements they ran to read what they touched.
    public var writes = 0
    public var writeStatements = 0
    /// The reads those statements went in: statements sent together count once (a round
    /// trip to a server).
    public var writeReads = 0
    /// Writes on a server that assumed the entities they loaded were new, reading nothing
    /// before their commit (one round trip), and those of them that found rows there and
    /// ran again, reading first.
    public var writesAssumingNew = 0
    public var writesAssumingNewRetried = 0
    /// Writes on a server that read before they took the write lock, and those of them that
    /// found under it that another commit had changed what they read, and ran again.
    public var writesReadingUnlocked = 0
    public var writesReadingUnlockedRetried = 0

    mutating func record(_ loader: SubgraphLoader) {
        materializations += 1
        statements += loader.statements
    }
}
