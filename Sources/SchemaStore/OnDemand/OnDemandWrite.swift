import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// What a write on a store reading on demand reads, through the writer's connection inside
/// the write's transaction: under the write lock, so that no other writer changes it
/// meanwhile, or, on a server, before it (``recordsReads``), noting what it read for the
/// commit to check that no other writer changed it since.
///
/// As the write's ``ContextFaulter`` it loads the entities and link lists the write's saves,
/// deletes and links touch, the first time they touch them; as its ``ContextReader`` it
/// answers the queries of the write's closure from the stored rows overlaid with the write's
/// own changes. So a write reads what it touches (a save: its row, the rows it links to and
/// their inverse lists; a delete: what its rules and cascades reach), whatever the file's size.
///
/// Reading cannot throw where the context asks for it (inside a save); the first failure is
/// kept in ``failure`` and the store fails the write with it, whatever the closure returned.
final class OnDemandWrite: ContextFaulter, ContextReader, @unchecked Sendable {
    private let layout: StoreLayout
    private let links: LinkLookup
    /// The writer's connection while the write runs; then a read-only snapshot of its own,
    /// opened when a context that left the write (returned by its closure) reads again.
    private var backend: any SnapshotConnection
    /// Serializes reads (a copy of the write's context may be read on another thread).
    /// Recursive: a query's reader faults through the same object.
    private let access = NSRecursiveLock()
    private var writeEnded = false
    private var ownSnapshot: (any SnapshotConnection)?
    /// Opens a read-only connection, for the snapshot of a context that outlives the write.
    private let connect: () throws -> any SnapshotConnection
    private let lock = NSLock()
    private var firstFailure: Error?
    /// Per table: each stored id read so far and its place in storage order (SQLite's rowid),
    /// which orders the sources of queries in the write as the file will.
    private var positions: [ObjectIdentifier: [StoredValue: Int64]] = [:]
    /// Per entity or link table, whether it held no rows when the write began, asked once: a
    /// write into an empty table (a first import) has no stored rows, links or unique
    /// holders to read there. The file does not change under the write until it commits (it
    /// holds the write lock, or its commit checks that no other wrote there meanwhile, and
    /// its own changes are written after its closure); forgotten when it ends.
    private var emptyTables: [String: Bool] = [:]
    /// Per entity table, the ids whose rows the write read and found missing (or whose
    /// table it found empty): their entities are new. Ids, not keys: a change the context
    /// rolls back gives its new keys back, and a key may then name another id.
    private var absentIDs: [ObjectIdentifier: Set<StoredValue>] = [:]
    /// How many statements the write ran to read, and in how many reads (statements sent
    /// together: round trips to a server), for tests and benchmarks.
    var statements: (count: Int, reads: Int) { lock.withLock { (statementCount, readCount) } }
    private var statementCount = 0
    private var readCount = 0
    /// Whether the write assumes that the entities it loads are new (``loadEntities``): on a
    /// server, it then sends no read for them, and checks with its commit's statements that
    /// they were (``SnapshotConnection/expectNoRows(_:)``).
    private let assumesNew: Bool
    /// How many loads the write assumed found nothing.
    var assumedNew: Int { lock.withLock { assumedNewCount } }
    private var assumedNewCount = 0
    /// Per entity table, the ids the write assumed new.
    private var assumedIDs: [ObjectIdentifier: Set<StoredValue>] = [:]
    /// Whether the write reads before it holds the write lock, and notes what it reads
    /// (``readSet``) for its commit to check that no other commit changed it meanwhile.
    private let recordsReads: Bool
    private var reads = WriteReadSet()
    /// What the write read so far (only while ``recordsReads``).
    var readSet: WriteReadSet { lock.withLock { reads } }

    /// How many ids one `IN (...)` list binds.
    private static let batchSize = SubgraphLoader.batchSize

    init(layout: StoreLayout, links: LinkLookup, backend: any SnapshotConnection, assumesNew: Bool = false, recordsReads: Bool = false,
         connect: @escaping () throws -> any SnapshotConnection) {
        self.layout = layout
        self.links = links
        self.backend = backend
        self.assumesNew = assumesNew
        self.recordsReads = recordsReads
        self.connect = connect
    }

    /// Called when the write's transaction ended: a context that outlives it (returned by
    /// the closure) reads the file as committed, through a snapshot of its own.
    func endWrite() {
        access.withLock {
            writeEnded = true
            emptyTables = [:]
        }
    }

    deinit {
        ownSnapshot?.endSnapshot()
        ownSnapshot?.close()
    }

    /// The first read that failed, if any: the write must not commit.
    var failure: Error? { lock.withLock { firstFailure } }

    // MARK: ContextFaulter

    func loadEntities(_ table: ObjectIdentifier, keys: [Int32], into context: inout Context) {
        attempt {
            if let archive = layout.archives[table] {
                for key in keys {
                    countRead(statements: 1)
                    noteRead([archive.idValue(key, in: context)], of: archive.entityName)
                    if let json = try backend.archive(name: archive.entityName, id: archive.idValue(key, in: context)) {
                        try archive.load(json, into: &context)
                    }
                }
                return
            }
            guard let entity = layout.persisterByTable[table] else { return }
            let ids = keys.map { entity.idValue($0, in: context) }
            if try assumeNew(entity, ids: ids) { return }
            noteRead(ids, of: entity.entityName)
            guard try !isEmpty(entity.tableName, column: entity.columns[0].name, loggedAs: entity.entityName, reading: keys.count) else {
                lock.withLock { absentIDs[table, default: []].formUnion(ids) }
                return
            }
            var found = Set<StoredValue>()
            for batch in SubgraphLoader.batches(ids) {
                // The rows and their to-one links, read together (one round trip to a server).
                var links: [(slot: LinkSlot, source: LinkLookup.Source)] = []
                var selects = [rowsSelect(entity, filter: .oneOf(.column(entity.columns[0].name), batch))]
                for relation in entity.relations where relation.slot.cardinality == .toOne {
                    guard try mayHoldLinks(relation.slot, owner: entity, reading: batch.count),
                          let (source, select) = self.links.select(of: relation.slot, in: entity.table, ids: batch) else { continue }
                    links.append((relation.slot, source))
                    selects.append(select)
                }
                countRead(statements: selects.count)
                let answers = try backend.rows(ofEach: selects)
                for row in answers[0] { found.insert(row[1]) }
                try loadRows(entity, answers[0], into: &context)
                for (link, pairs) in zip(links, answers.dropFirst()) {
                    noteLinksRead(from: link.source, of: batch, pairs: pairs)
                    try loadLinks(link.slot, from: link.source, pairs: pairs, owner: entity, into: &context)
                }
            }
            lock.withLock { absentIDs[table, default: []].formUnion(ids.filter { !found.contains($0) }) }
        }
    }

    /// Whether the write takes the entities `ids` of `entity` for new without reading them
    /// (``assumesNew``): their rows and to-one links are then checked absent with the
    /// write's later statements, and the entities count as read and found missing. Only
    /// for fewer than ``emptinessWorthAsking`` ids (a large load reads: what it saves is a
    /// round trip among many) and only while the write runs.
    private func assumeNew(_ entity: any AnyEntityPersister, ids: [StoredValue]) throws -> Bool {
        guard assumesNew, !writeEnded, ids.count < Self.emptinessWorthAsking else { return false }
        var selects = [SQLSelect(output: .columns([.column(entity.columns[0].name)]), table: entity.tableName,
                                 filter: .oneOf(.column(entity.columns[0].name), ids))]
        for relation in entity.relations where relation.slot.cardinality == .toOne {
            if let (_, select) = links.select(of: relation.slot, in: entity.table, ids: ids) { selects.append(select) }
        }
        try backend.expectNoRows(selects)
        lock.withLock {
            absentIDs[entity.table, default: []].formUnion(ids)
            assumedIDs[entity.table, default: []].formUnion(ids)
            assumedNewCount += 1
        }
        return true
    }

    /// Whether the lists of `slot` of the entities `ids` of `owner`, all assumed new
    /// (``assumeNew(_:ids:)``), are taken for empty without reading them: checked so with
    /// the write's later statements.
    private func assumeNoLinks(_ slot: LinkSlot, of ids: [StoredValue], owner: any AnyEntityPersister) throws -> Bool {
        guard assumesNew, !writeEnded,
              lock.withLock({ assumedIDs[owner.table].map { Set(ids).isSubset(of: $0) } ?? false }) else { return false }
        if let (_, select) = links.select(of: slot, in: owner.table, ids: ids) { try backend.expectNoRows([select]) }
        return true
    }

    /// Whether the write read the row of the entity `id` of `table` and found none: the
    /// entity is new (a write holds the write lock, or checks under it that no other commit
    /// named the entity since, so no other can add it meanwhile).
    func readAbsent(_ id: StoredValue, of table: ObjectIdentifier) -> Bool {
        lock.withLock { absentIDs[table]?.contains(id) ?? false }
    }

    func loadLists(_ table: ObjectIdentifier, slot: LinkSlot, keys: [Int32], into context: inout Context) {
        attempt {
            guard let entity = layout.persisterByTable[table] else { return }
            let ids = keys.map { entity.idValue($0, in: context) }
            if try assumeNoLinks(slot, of: ids, owner: entity) { return }
            for batch in SubgraphLoader.batches(ids) { try loadLinks(slot, of: batch, owner: entity, into: &context) }
        }
    }

    func uniqueHolders<Entity: EntityModelProtocol>(of entity: Entity, into context: inout Context) -> [Int32] {
        attempt {
            guard let persister = layout.persisterByTable[ObjectIdentifier(Entity.self)],
                  try !isEmpty(persister.tableName, column: persister.columns[0].name, loggedAs: persister.entityName, reading: 1) else { return [] }
            let filter = try persister.uniqueHolderFilter(of: entity)
            let select = SQLSelect(output: .columns([.column(persister.columns[0].name)]), table: persister.tableName, filter: filter)
            // An entity taken for new is taken to collide with none: checked with the
            // write's later statements, as its row is.
            if assumesNew, !writeEnded, let id = (entity.id as? any StorableValue)?.storedValue,
               lock.withLock({ assumedIDs[persister.table]?.contains(id) ?? false }) {
                try backend.expectNoRows([select])
                return []
            }
            var ids: [StoredValue] = []
            countRead(statements: 1)
            try backend.rows(select) { ids.append($0[0]) }
            if recordsReads, !writeEnded {
                // What holds the value now must be all that holds it at the commit: checked
                // under the write lock, as assumed absences are; the holders' rows by id.
                noteRead(ids, of: persister.entityName)
                try backend.expectNoRows([ids.isEmpty ? select : SQLSelect(
                    output: select.output, table: select.table,
                    filter: .and([filter, .not(.oneOf(.column(persister.columns[0].name), ids))]))])
            }
            return try persister.loadKeys(ids, into: &context)
        } ?? []
    }

    // MARK: ContextReader

    func materialize<Entity: EntityModelProtocol>(_ list: QueryList<Entity>, in context: Context) -> (QueryList<Entity>, Context) {
        var copy = context
        let table = ObjectIdentifier(Entity.self)
        if list.readsAll {
            let keys = attempt { try sourceKeys(list, in: &copy) } ?? []
            follow(list.readReach, from: keys, of: table, in: &copy)
            return (list.reading(keys: keys, offsetApplied: false), copy.detachedFromStore())
        }
        // A ranked match scores against every row of the table, whatever its source lists.
        if list.ranksByRelevance { _ = attempt { try sourceKeys(Entity.query().query, in: &copy) } }
        // Other sources resolve in the copy as they are, once it holds what they name.
        let keys = attempt { () throws -> [Int32]? in
            if let ids = list.listedIDs, let entity = layout.persisterByTable[table] {
                let stored = ids.compactMap { ($0 as? any StorableValue)?.storedValue }
                guard stored.count == ids.count else { return nil }
                let keys = try entity.loadKeys(stored, into: &copy)
                copy.readEntities(table, keys)
                return keys
            }
            if let origin = list.linkOrigin, let owner = layout.persisterByTable[origin.table] {
                let ownerKey = try owner.loadKey(origin.id, into: &copy)
                switch origin.slot.cardinality {
                case .toOne: copy.readEntities(origin.table, [ownerKey])
                case .toMany: copy.readLists(origin.table, origin.slot, [ownerKey])
                }
                let linked = copy.targetKeys(origin.table, origin.slot, of: ownerKey)
                copy.readEntities(table, linked)
                return linked
            }
            return nil
        } ?? nil
        if let keys {
            follow(list.readReach, from: keys, of: table, in: &copy)
        } else {
            // Unions, intersections and derived sources: everything the file holds.
            attempt { try readEverything(into: &copy) }
        }
        return (list, copy.detachedFromStore())
    }

    func materialize<Entity: EntityModelProtocol>(_ query: Query<Entity>, in context: Context) -> Context {
        guard let id = query.namedID else {
            // `first()` and `last()` resolve through their list; anything else reads the table.
            return materialize(Entity.query().query.with(.ids), in: context).1
        }
        var copy = context
        let table = ObjectIdentifier(Entity.self)
        let key = attempt { () throws -> Int32? in
            guard let stored = (id as? any StorableValue)?.storedValue else { return nil }
            if let entity = layout.persisterByTable[table] { return try entity.loadKey(stored, into: &copy) }
            return try layout.archives[table]?.loadKey(stored, into: &copy)
        } ?? nil
        if let key {
            copy.readEntities(table, [key])
            follow(query.readReach, from: [key], of: table, in: &copy)
        }
        return copy.detachedFromStore()
    }

    func count<Entity: EntityModelProtocol>(_ list: QueryList<Entity>, in context: Context) -> Int? { nil }

    func materializeEverything(in context: Context) -> Context {
        var copy = context
        attempt { try readEverything(into: &copy) }
        return copy.detachedFromStore()
    }

    func count<Entity: EntityModelProtocol>(of type: Entity.Type, in context: Context) -> Int {
        let (list, materialized) = materialize(Entity.query().query, in: context)
        return list.count(in: materialized)
    }

    // MARK: Reading

    /// The keys a query in the write reads, in storage order: every stored row SQL selects
    /// for its filter (a superset of the rows it keeps), then what the write changed or
    /// created, each at its place (new rows last, in the order the write made them).
    private func sourceKeys<Entity: EntityModelProtocol>(_ list: QueryList<Entity>, in context: inout Context) throws -> [Int32] {
        let table = ObjectIdentifier(Entity.self)
        if let archive = layout.archives[table] {
            // Archives are kept as JSON: every one is read.
            countRead(statements: 1)
            noteReadAll(of: archive.entityName)
            let ids = try backend.archiveIDs(name: archive.entityName)
            var keys = try ids.map { try archive.loadKey($0, into: &context) }
            context.readEntities(table, keys)
            // Archives the write made, after the stored ones.
            var seen = Set(keys)
            for key in Self.rowKeys(Entity.self, in: context) where seen.insert(key).inserted { keys.append(key) }
            return Self.present(Entity.self, in: context, ordered: keys)
        }
        guard let entity = layout.persisterByTable[table] else { return [] }
        // A ranked match scores against every row: they are all read so the in-memory
        // full-text index ranks as over the whole table.
        var filter = SQLExpression.boolean(true)
        if !list.ranksByRelevance, let predicate = list.filterPredicate {
            filter = PredicateCompiler(entity: entity, dialect: backend.dialect).compile(predicate.structure).filter
        }
        var ids: [StoredValue] = []
        countRead(statements: 1)
        noteReadAll(of: entity.entityName)
        try backend.rows(SQLSelect(output: .columns([.column(entity.columns[0].name), .storageOrder()]), table: entity.tableName, filter: filter,
                                   order: [SQLOrderTerm(expression: .storageOrder(), descending: false)])) { values in
            ids.append(values[0])
            if case .integer(let position) = values[1] { record(position, of: values[0], in: table) }
        }
        let keys = try entity.loadKeys(ids, into: &context)
        context.readEntities(table, keys)
        // Rows the write changed or made, which the stored filter may have left out.
        let positions = lock.withLock { self.positions[table] ?? [:] }
        var seen = Set(keys)
        var ordered = zip(ids, keys).map { (position: positions[$0] ?? .max, key: $1) }
        for key in Self.rowKeys(Entity.self, in: context) where seen.insert(key).inserted {
            ordered.append((positions[entity.idValue(key, in: context)] ?? .max, key))
        }
        ordered.sort { ($0.position, $0.key) < ($1.position, $1.key) }
        return Self.present(Entity.self, in: context, ordered: ordered.map(\.key))
    }

    /// Reads every stored entity, link list and archive into `context`. O(file): for the
    /// queries in a write whose source names no rows SQL can select.
    private func readEverything(into context: inout Context) throws {
        for name in layout.entities.map(\.entityName) + layout.links.map(\.name) + layout.archives.values.map(\.entityName) {
            noteReadAll(of: name)
        }
        for entity in layout.entities {
            var ids: [StoredValue] = []
            countRead(statements: 1)
            try backend.rows(SQLSelect(output: .columns([.column(entity.columns[0].name)]), table: entity.tableName,
                                       order: [SQLOrderTerm(expression: .storageOrder(), descending: false)])) { ids.append($0[0]) }
            let keys = try entity.loadKeys(ids, into: &context)
            context.readEntities(entity.table, keys)
            for relation in entity.relations where relation.slot.cardinality == .toMany {
                context.readLists(entity.table, relation.slot, keys)
            }
        }
        for archive in layout.archives.values {
            countRead(statements: 1)
            let keys = try backend.archiveIDs(name: archive.entityName).map { try archive.loadKey($0, into: &context) }
            context.readEntities(archive.table, keys)
        }
    }

    /// Reads what `reach` follows from `owners`, in the write's context: the links of each
    /// relation it follows (as the write left them), then the rows they link to, onward.
    private func follow(_ reach: ReadReach, from owners: [Int32], of table: ObjectIdentifier, in context: inout Context) {
        guard !owners.isEmpty else { return }
        for edge in reach.edges where edge.source == table {
            switch edge.slot.cardinality {
            case .toOne: context.readEntities(edge.source, owners)
            case .toMany: context.readLists(edge.source, edge.slot, owners)
            }
            var seen = Set<Int32>()
            var linked: [Int32] = []
            for owner in owners {
                for key in context.targetKeys(edge.source, edge.slot, of: owner) where seen.insert(key).inserted { linked.append(key) }
            }
            context.readEntities(edge.target, linked)
            follow(edge.onward, from: linked, of: edge.target, in: &context)
        }
    }

    /// The statement reading the rows `filter` selects (``loadRows(_:_:into:)``), each
    /// with its place in storage order.
    private func rowsSelect(_ entity: any AnyEntityPersister, filter: SQLExpression) -> SQLSelect {
        let select = SQLSelect(output: .columns([.storageOrder()] + entity.columns.map { .column($0.name) }), table: entity.tableName, filter: filter)
        return PackUnion.readingSources(select, of: backend.packUnion)
    }

    /// Loads the rows ``rowsSelect(_:filter:)`` read into `context`, noting each one's place
    /// in storage order.
    private func loadRows(_ entity: any AnyEntityPersister, _ read: [[StoredValue]], into context: inout Context) throws {
        var rows: [[StoredValue]] = []
        rows.reserveCapacity(read.count)
        for values in read {
            if case .integer(let position) = values[0] { record(position, of: values[1], in: entity.table) }
            rows.append(Array(values.dropFirst()))
        }
        if let union = backend.packUnion {
            rows = union.markSources(rows, keys: try entity.loadKeys(rows.map { $0[0] }, into: &context), of: entity, in: &context)
        }
        _ = try entity.loadRows(rows, into: &context)
    }

    /// Whether the link table of `slot` may hold links of the `reading` owners to read:
    /// false only for a table known to have been empty when the write began (``isEmpty``).
    private func mayHoldLinks(_ slot: LinkSlot, owner: any AnyEntityPersister, reading: Int) throws -> Bool {
        switch links.source(of: slot, in: owner.table) {
        case .stored(let link)?, .inverse(let link)?: return try !isEmpty(link.name, column: "owner", loggedAs: link.name, reading: reading)
        case nil: return false
        }
    }

    /// Reads the stored links of `slot` of the entities `ids` (whole, in order) into their own
    /// slot only: the entities they link to read theirs when the write touches them.
    private func loadLinks(_ slot: LinkSlot, of ids: [StoredValue], owner: any AnyEntityPersister, into context: inout Context) throws {
        guard try mayHoldLinks(slot, owner: owner, reading: ids.count),
              let (source, select) = links.select(of: slot, in: owner.table, ids: ids) else { return }
        countRead(statements: 1)
        var pairs: [[StoredValue]] = []
        try backend.rows(select) { pairs.append($0) }
        noteRead(ids, of: owner.entityName)
        noteLinksRead(from: source, of: ids, pairs: pairs)
        try loadLinks(slot, from: source, pairs: pairs, owner: owner, into: &context)
    }

    /// Loads links read by a ``LinkLookup/select(of:in:ids:)`` from `source` (each row an
    /// owner and a target) into `slot` of their owners.
    private func loadLinks(_ slot: LinkSlot, from source: LinkLookup.Source, pairs: [[StoredValue]], owner: any AnyEntityPersister,
                           into context: inout Context) throws {
        let target: any AnyEntityPersister
        switch source {
        case .stored(let link): target = link.targetEntity
        // Read backwards: the link table's owners are this slot's targets.
        case .inverse(let link): target = link.ownerEntity
        }
        let ownerKeys = try owner.loadKeys(pairs.map { $0[0] }, into: &context)
        let targetKeys = try target.loadKeys(pairs.map { $0[1] }, into: &context)
        for run in LinkLookup.runs(ownerKeys) {
            let targets = Array(targetKeys[run])
            switch slot.cardinality {
            case .toMany: context.loadLinks(owner.table, slot, of: ownerKeys[run.lowerBound], to: targets, targetTable: target.table)
            case .toOne: context.loadLink(owner.table, slot, of: ownerKeys[run.lowerBound], to: targets[0], targetTable: target.table)
            }
        }
    }

    // MARK: Helpers

    private func record(_ position: Int64, of id: StoredValue, in table: ObjectIdentifier) {
        lock.withLock { positions[table, default: [:]][id] = position }
    }

    /// The fewest ids a read must be for asking first whether their table is empty.
    static let emptinessWorthAsking = 64

    /// Whether the entity or link table `name` (over packs: the union) held no rows when the
    /// write began; `column` is one of its columns, `logName` what the commit log calls it
    /// (an entity's table may be named otherwise). Only while the write runs: a context
    /// that outlives it reads the committed file.
    ///
    /// Asked only when the write is about to read `reading` ids there, at least
    /// ``emptinessWorthAsking``: reading a few ids by key costs what asking does (a round
    /// trip on a server), so a small write would pay for the question on every table it
    /// touches and gain nothing. False (read them) when not asked.
    private func isEmpty(_ name: String, column: String, loggedAs logName: String, reading: Int) throws -> Bool {
        guard !writeEnded else { return false }
        if let known = emptyTables[name] { return known }
        guard reading >= Self.emptinessWorthAsking else { return false }
        noteReadAll(of: logName)
        var empty = true
        countRead(statements: 1)
        try backend.rows(SQLSelect(output: .columns([.column(column)]), table: name, limit: 1)) { _ in empty = false }
        emptyTables[name] = empty
        return empty
    }

    /// Notes reads of `ids` under `name` (``readSet``).
    private func noteRead(_ ids: [StoredValue], of name: String) {
        guard recordsReads, !writeEnded else { return }
        lock.withLock { reads.read(ids, of: name) }
    }

    private func noteReadAll(of name: String) {
        guard recordsReads, !writeEnded else { return }
        lock.withLock { reads.readAll(of: name) }
    }

    /// Notes a read of the links of `ids` from `source`, which answered `pairs` (each an
    /// owner, of `ids`, and a target). The log names a link table's changes by the owners of
    /// its rows: read backwards, those are the targets found, and an id that found none
    /// could gain one under any owner (the whole table counts as read).
    private func noteLinksRead(from source: LinkLookup.Source, of ids: [StoredValue], pairs: [[StoredValue]]) {
        switch source {
        case .stored(let link):
            noteRead(ids, of: link.name)
        case .inverse(let link):
            noteRead(pairs.map { $0[1] }, of: link.name)
            if Set(pairs.map { $0[0] }).count < Set(ids).count { noteReadAll(of: link.name) }
        }
    }

    /// Counts a read of `statements` statements sent together.
    private func countRead(statements: Int) {
        lock.withLock {
            statementCount += statements
            readCount += 1
        }
    }

    /// Every key of `Entity` holding a row in `context`, in key order.
    private static func rowKeys<Entity: EntityModelProtocol>(_ type: Entity.Type, in context: Context) -> [Int32] {
        (0..<Int32(context.internedCount(of: Entity.self))).filter { context.storedRow(Entity.self, key: $0) != nil }
    }

    /// `keys` that hold a row in `context`, in order.
    private static func present<Entity: EntityModelProtocol>(_ type: Entity.Type, in context: Context, ordered keys: [Int32]) -> [Int32] {
        keys.filter { context.storedRow(Entity.self, key: $0) != nil }
    }


    /// Runs a read, keeping its error (the first one) for ``failure``.
    private func attempt<Result>(_ body: () throws -> Result) -> Result? {
        access.lock()
        defer { access.unlock() }
        do {
            if writeEnded, ownSnapshot == nil {
                // The writer's connection belongs to later writes now.
                let snapshot = try connect()
                try snapshot.beginSnapshot()
                ownSnapshot = snapshot
                backend = snapshot
            }
            return try body()
        } catch {
            lock.withLock { if firstFailure == nil { firstFailure = error } }
            return nil
        }
    }
}
