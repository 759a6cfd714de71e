import SchemaRuntime

/// The writes of a PostgreSQL transaction not sent yet. A write's answer is never read, so
/// writes wait here and go to the server together (``steps()``), in one pipeline:
/// - rows inserted by one statement one after another become one statement whose rows come
///   as one array per column (`INSERT ... SELECT * FROM unnest($1::bigint[], $2::text[])`,
///   ``ServerArrayLiteral``), up to ``arrayRowsPerStatement``; rows of a plain insert
///   (``RowInsert``) go by `COPY` instead when there are at least ``copyRows``; a row
///   alone binds its values (`SELECT * FROM (VALUES ($1::bigint, $2::text)) AS row`);
/// - values of one `DELETE ... IN` one after another become one list, up to ``listValuesPerStatement``.
///
/// Order is kept: only consecutive rows of one statement merge, and a key already in the
/// merged rows starts a new statement (an upsert may not touch one row twice).
///
/// Consecutive statements that declare touching different tables (``StatementFusion``) then
/// go as one, after the last statement whose answer is read.
///
/// A table's first big `COPY` in a transaction is preceded by the drop of its indexes when
/// it is empty, and they are made again before anything that could use them
/// (``IndexDeferral``).
///
/// Merged rows are spelled (column arrays, COPY text) as soon as their statement is
/// complete, on the writer's thread: in a big write that thread mostly waits for the
/// server, while the thread sending a batch (``SentBatch``) would keep the server waiting
/// as it spelled them.
struct PendingWrites: Sendable {
    /// Rows of one statement, or values of one list, merged.
    private struct Merged: Sendable {
        let head: String
        let tail: String
        /// Each column's PostgreSQL type, for rows; nil for a list of single values
        /// (`head ($1, $2, ...) tail`).
        let arrayTypes: [String]?
        /// The `COPY` that may insert the rows instead (``RowInsert/copy``).
        let copy: String?
        /// The statement's tables, when it may join others (``StatementFusion``).
        let fusion: StatementFusion?
        var rows: [[StoredValue]]
        var keys: Set<StoredValue>
    }

    /// Rows sent as column arrays bind one value per column, whatever their number.
    static let arrayRowsPerStatement = 10_000
    /// Well under the values one statement may bind (``StatementFusion/maximumParameters``).
    static let listValuesPerStatement = 1000
    /// Fewer rows go faster as a statement: a `COPY` ends the batch's pipeline (a round trip).
    static let copyRows = 500

    /// The complete statements, spelled.
    private var writes: [ServerBatchStep] = []
    /// Each of `writes`' declaration for fusing, nil when it is never fused.
    private var fusions: [StatementFusion?] = []
    /// The number of `writes` up to the last whose answer is read (``appendRead(_:_:)``):
    /// they keep their places, by which answers are read.
    private var readBarrier = 0
    /// The fused statements' texts made so far (``StatementFusion/fused(_:_:from:texts:)``).
    private var fusedTexts: [[SQLTextKey]: String] = [:]
    /// The texts of merged statements spelled so far, by what they were spelled from: a
    /// store sends the same few shapes again and again, and spelling one anew (joining its
    /// placeholders) was about 8% of a single write's instructions on the client.
    private var spelledTexts: [SpelledText: String] = [:]
    /// What a merged statement's text is spelled from (``step(_:texts:)``). Hashed by its
    /// parts' lengths alone, which tell a store's few shapes apart nearly always (hashing
    /// the texts cost as much as the rest of a lookup); equality compares them whole.
    private struct SpelledText: Hashable {
        let head: String
        let tail: String
        let arrayTypes: [String]?
        /// For a list, its number of values; 1 for a single row, 0 for rows as arrays.
        let count: Int

        func hash(into hasher: inout Hasher) {
            hasher.combine(head.utf8.count)
            hasher.combine(tail.utf8.count)
            hasher.combine(arrayTypes?.count ?? -1)
            hasher.combine(count)
        }
    }
    /// The most spelled texts kept, forgotten together past it (lists of every length up
    /// to ``listValuesPerStatement`` are spelled apart).
    static let keptSpelledTexts = 512
    /// The tables (quoted) whose keys and indexes wait in this transaction (``IndexDeferral``).
    private var deferredTables: [String] = []
    /// The tables a `COPY` went into in this transaction: the first decides whether their
    /// indexes wait.
    private var consideredTables: Set<String> = []
    /// The rows being merged, kept apart from `writes` so that adding one is O(1) (an
    /// element of `writes` would be copied by each change).
    private var open: Merged?
    private(set) var count = 0

    var isEmpty: Bool { writes.isEmpty && open == nil }

    /// Appends a statement; one declaring its tables (`fusion`) may go as part of one
    /// statement with those beside it.
    mutating func append(_ sql: String, _ parameters: [StoredValue], fusion: StatementFusion? = nil) {
        assert(fusion?.declares(sql) ?? true, "a statement declares other tables than it names: \(sql)")
        close()
        appendStep(.statement(sql: sql, parameters: parameters), fusion: fusion, copyTable: nil, rows: 1)
        count += 1
    }

    /// Appends a `COPY` of `count` rows already spelled in its text format
    /// (``ServerCopyRows``) into the table `fusion` declares; it goes on its own, as merged
    /// rows sent by `COPY` do.
    mutating func appendCopy(_ sql: String, rows: [UInt8], count rowCount: Int, fusion: StatementFusion) {
        close()
        appendStep(.copy(sql: sql, rows: rows), fusion: nil, copyTable: fusion.tables.first, rows: rowCount)
        count += rowCount
    }

    /// Forgets the tables whose indexes wait (``IndexDeferral``): a transaction begins or ended.
    mutating func resetIndexDeferral() {
        deferredTables = []
        consideredTables = []
    }

    /// Whether tables' keys and indexes wait (``IndexDeferral``).
    var hasDeferredIndexes: Bool { !deferredTables.isEmpty }

    /// Makes again the keys and indexes that wait (``IndexDeferral/restore``), before a
    /// statement this type does not see (a read sent with the pending writes).
    mutating func restoreDeferredIndexes() {
        close()
        restoreDeferredIndexes(before: nil)
    }

    /// Appends `step`, first dropping the indexes of an empty table it is the first big
    /// `COPY` into, or making again those a statement could use (``IndexDeferral``).
    private mutating func appendStep(_ step: ServerBatchStep, fusion: StatementFusion?, copyTable: String?, rows: Int) {
        if case .copy = step, let table = copyTable {
            if consideredTables.insert(table).inserted, rows >= IndexDeferral.rows, let drop = IndexDeferral.drop(table) {
                writes.append(.statement(sql: drop, parameters: []))
                fusions.append(nil)
                deferredTables.append(table)
            }
        } else {
            restoreDeferredIndexes(before: fusion)
        }
        writes.append(step)
        fusions.append(fusion)
    }

    /// Appends ``IndexDeferral/restore`` when tables' indexes wait and a statement declaring
    /// `fusion` (nil: it may touch any table) could touch one of them.
    private mutating func restoreDeferredIndexes(before fusion: StatementFusion?) {
        guard !deferredTables.isEmpty else { return }
        if let fusion, !fusion.tables.contains(where: deferredTables.contains) { return }
        writes.append(.statement(sql: IndexDeferral.restore, parameters: []))
        fusions.append(nil)
        deferredTables = []
    }

    /// Appends a statement whose answer is wanted; returns its place among ``steps()``
    /// (nothing merges with it, and the statements before it keep their places until
    /// ``removeAll()`` or ``removeComplete()``).
    mutating func appendRead(_ sql: String, _ parameters: [StoredValue]) -> Int {
        append(sql, parameters)
        readBarrier = writes.count
        return writes.count - 1
    }

    /// Replaces the statement at `step` (``appendRead(_:_:)``) when it is still the last one
    /// waiting; returns whether it did.
    mutating func replaceLast(_ step: Int, with sql: String, _ parameters: [StoredValue]) -> Bool {
        guard open == nil, step == writes.count - 1 else { return false }
        writes[step] = .statement(sql: sql, parameters: parameters)
        fusions[step] = nil
        return true
    }

    private mutating func close() {
        if let merged = open {
            let step = Self.step(merged, texts: &spelledTexts)
            appendStep(step, fusion: Self.fusion(of: step, merged), copyTable: merged.fusion?.tables.first, rows: merged.rows.count)
        }
        open = nil
    }

    /// A merged statement's declaration; none for a `COPY`, which goes on its own.
    private static func fusion(of step: ServerBatchStep, _ merged: Merged) -> StatementFusion? {
        guard case .statement = step else { return nil }
        return merged.fusion
    }

    /// A row of `head unnest($1::type[], ...) tail` (head `INSERT INTO "User" ("id", "name")
    /// SELECT * FROM `), merged with the rows just before it of the same statement; `key` is
    /// the row's conflict key, nil when there is none. `fusion` declares the statement's
    /// tables, the same for every row of one head and tail (not compared row by row).
    mutating func appendColumnRow(head: String, types: [String], tail: String = "", _ values: [StoredValue], key: StoredValue?,
                                  copy: String? = nil, fusion: StatementFusion? = nil) {
        count += 1
        if let merged = open, merged.arrayTypes == types, merged.head == head, merged.tail == tail, merged.copy == copy,
           merged.rows.count < Self.arrayRowsPerStatement, key.map({ !merged.keys.contains($0) }) ?? true {
            open!.rows.append(values)
            if let key { open!.keys.insert(key) }
            return
        }
        assert(fusion?.declares(head + tail) ?? true, "rows declare other tables than their statement names: \(head)")
        close()
        open = Merged(head: head, tail: tail, arrayTypes: types, copy: copy, fusion: fusion, rows: [values], keys: key.map { [$0] } ?? [])
    }

    /// A value of `head (...) tail` (`DELETE FROM "Chat.messages" WHERE owner IN`), merged
    /// with the values just before it of the same head and tail.
    mutating func appendListValue(head: String, tail: String = "", _ value: StoredValue, fusion: StatementFusion? = nil) {
        count += 1
        if let merged = open, merged.arrayTypes == nil, merged.head == head, merged.tail == tail,
           merged.rows.count < Self.listValuesPerStatement {
            open!.rows.append([value])
            return
        }
        assert(fusion?.declares(head + tail) ?? true, "values declare other tables than their statement names: \(head)")
        close()
        open = Merged(head: head, tail: tail, arrayTypes: nil, copy: nil, fusion: fusion, rows: [[value]], keys: [])
    }

    /// The complete statements waiting (rows still merging are not), if none is a `COPY`.
    func completeStatements() -> [(sql: String, parameters: [StoredValue])]? {
        var statements: [(sql: String, parameters: [StoredValue])] = []
        statements.reserveCapacity(writes.count)
        for step in writes {
            guard case .statement(let sql, let parameters) = step else { return nil }
            statements.append((sql, parameters))
        }
        return statements
    }

    /// How many complete statements wait.
    var completeCount: Int { writes.count }

    /// Whether no statement waiting could be fused with those after it (none declares its
    /// tables): sending them now loses nothing.
    var holdsNothingFusable: Bool { open == nil && fusions.allSatisfy { $0 == nil } }

    /// Forgets the complete statements (sent ahead of the rest).
    mutating func removeComplete() {
        writes.removeAll(keepingCapacity: true)
        fusions.removeAll(keepingCapacity: true)
        readBarrier = 0
    }

    mutating func removeAll() {
        removeComplete()
        open = nil
        count = 0
    }

    /// The statements to send, in order (``ServerConnection/send(_:)``), those that may go
    /// together after the last read made one (``StatementFusion``).
    mutating func steps() -> [ServerBatchStep] {
        // The rows still merging are complete now: what is sent cannot grow.
        close()
        return StatementFusion.fused(writes, fusions, from: readBarrier, texts: &fusedTexts)
    }

    /// Merged rows or values as one statement, or a `COPY`; its text from `texts` when it
    /// was spelled before.
    private static func step(_ merged: Merged, texts: inout [SpelledText: String]) -> ServerBatchStep {
        if let copy = merged.copy, merged.arrayTypes != nil, merged.rows.count >= copyRows {
            return .copy(sql: copy, rows: ServerCopyRows.encode(merged.rows))
        }
        let count = merged.arrayTypes == nil ? merged.rows.count : merged.rows.count == 1 ? 1 : 0
        let key = SpelledText(head: merged.head, tail: merged.tail, arrayTypes: merged.arrayTypes, count: count)
        let sql = texts[key] ?? {
            let sql = spelled(key)
            if texts.count >= keptSpelledTexts { texts.removeAll() }
            texts[key] = sql
            return sql
        }()
        guard let types = merged.arrayTypes else { return .statement(sql: sql, parameters: merged.rows.map { $0[0] }) }
        // One row (a single write's): its values bound as they are, with no arrays to spell.
        if count == 1 { return .statement(sql: sql, parameters: merged.rows[0]) }
        let parameters = types.indices.map { column in StoredValue.text(ServerArrayLiteral.encode(merged.rows.map { $0[column] })) }
        return .statement(sql: sql, parameters: parameters)
    }

    /// The text of a merged statement: a list's values as placeholders, a single row's
    /// values bound as they are (`(VALUES ($1::bigint, ...))`), more rows as one array per
    /// column (`unnest($1::bigint[], ...)`).
    private static func spelled(_ key: SpelledText) -> String {
        let (head, tail) = (key.head, key.tail)
        guard let types = key.arrayTypes else {
            let values = (0..<key.count).map { "$\($0 + 1)" }.joined(separator: ", ")
            return "\(head) (\(values))\(tail)"
        }
        if key.count == 1 {
            // A subquery in FROM needs a name unless the tail gives one.
            let values = types.indices.map { "$\($0 + 1)::\(types[$0])" }.joined(separator: ", ")
            let name = tail.hasPrefix(" AS ") ? "" : " AS row"
            return "\(head)(VALUES (\(values)))\(name)\(tail)"
        }
        let arrays = types.indices.map { "$\($0 + 1)::\(types[$0])[]" }.joined(separator: ", ")
        return "\(head)unnest(\(arrays))\(tail)"
    }
}
