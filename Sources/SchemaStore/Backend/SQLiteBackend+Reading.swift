@_spi(SchemaStore) import SchemaRuntime

/// Reads for a store answering queries through SQL (``OnDemandSnapshot``): a pinned read
/// transaction, and compiled statements run with their bound values.
extension SQLiteBackend: SnapshotConnection {
    /// SQLite's, or the union's over packs (its selects read in place of the tables).
    var dialect: any SQLDialect { attachedPacks?.dialect ?? SQLiteDialect() }

    var packUnion: PackUnion? { attachedPacks?.union }

    /// Starts a read transaction and reads, so that it sees the file as it is now until
    /// ``endSnapshot()``, whatever other connections commit meanwhile (WAL).
    func beginSnapshot() throws {
        try refreshPackUnion()
        try mapped {
            // Pages are read through the OS's cache, shared by every snapshot's connection,
            // rather than copied into each new connection's own cache.
            try database.execute("PRAGMA mmap_size = 268435456")
            try database.execute("BEGIN DEFERRED")
            let statement = try database.statement("SELECT count(*) FROM sqlite_master")
            defer { statement.reset() }
            _ = try statement.step()
            snapshotCommit = nil
            // Read in the transaction, so it is the snapshot's: a file only old versions
            // wrote has no log.
            if try database.tableNames().contains(CommitLog.table) {
                let last = try database.statement("SELECT coalesce(max(\"commit\"), 0) FROM \(Self.commitLogTable)")
                defer { last.reset() }
                if try last.step(), case .integer(let commit) = last.value(at: 0) { snapshotCommit = commit }
            }
        }
    }

    /// Ends the read transaction of ``beginSnapshot()``; the WAL may then be checkpointed past it.
    func endSnapshot() {
        snapshotCommit = nil
        database.resetActiveStatements()
        try? database.execute("ROLLBACK")
    }

    /// Runs `select`, passing each row's values to `body`.
    func rows(_ select: SQLSelect, _ body: ([StoredValue]) throws -> Void) throws {
        let sql = SQLRenderer.render(select, in: dialect)
        try mapped {
            let statement = try database.statement(sql.text)
            defer { statement.reset() }
            try statement.bind(sql.bindings)
            let count = statement.columnCount
            while try statement.step() {
                try body((0..<count).map(statement.value(at:)))
            }
        }
    }

    /// Whether the file has `index` as this version declares it: only writers opened on
    /// demand create indexes, and a file an older version wrote may hold one by the same name
    /// ordered otherwise (a select naming it with `INDEXED BY` could then not be prepared).
    func hasSQLIndex(_ index: SQLIndex) throws -> Bool {
        try mapped { try database.indexStatements()[index.name] == index.createStatement(SQLiteDialect()) }
    }

    /// SQLite's plan for `select` (`EXPLAIN QUERY PLAN`), one line per step.
    func queryPlan(_ select: SQLSelect) throws -> [String] {
        let sql = SQLRenderer.render(select, in: dialect)
        return try mapped {
            let statement = try database.statement("EXPLAIN QUERY PLAN " + sql.text)
            defer { statement.reset() }
            try statement.bind(sql.bindings)
            var lines: [String] = []
            while try statement.step() {
                if case .text(let detail) = statement.value(at: 3) { lines.append(detail) }
            }
            return lines
        }
    }
}

extension SQLiteBackend {
    /// Creates the SQL indexes the layout declares (``SQLIndex``) and drops the managed ones
    /// it no longer declares, or declares differently. Called by a writer opening the file,
    /// inside its opening transaction; an index already in place costs nothing.
    func syncIndexes(_ layout: StoreLayout) throws {
        let wanted = SQLIndex.wanted(by: layout, in: SQLiteDialect())
        let existing = try database.statement("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")
        var present: [String: String] = [:]
        while try existing.step() {
            if case .text(let name) = existing.value(at: 0), case .text(let sql) = existing.value(at: 1), SQLIndex.isManaged(name) { present[name] = sql }
        }
        for (name, sql) in present.sorted(by: { $0.key < $1.key }) where wanted[name] != sql {
            try database.execute("DROP INDEX \(quoted(name))")
        }
        for (name, sql) in wanted.sorted(by: { $0.key < $1.key }) where present[name] != sql {
            try database.execute(sql)
        }
    }
}
