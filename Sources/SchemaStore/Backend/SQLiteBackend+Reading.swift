@_spi(SchemaStore) import SchemaRuntime

/// Reads for a store answering queries through SQL (``OnDemandSnapshot``): a pinned read
/// transaction, and compiled statements run with their bound values.
extension SQLiteBackend {
    /// Starts a read transaction and reads, so that it sees the file as it is now until
    /// ``endSnapshot()``, whatever other connections commit meanwhile (WAL).
    func beginSnapshot() throws {
        try mapped {
            try database.execute("BEGIN DEFERRED")
            let statement = try database.statement("SELECT count(*) FROM sqlite_master")
            defer { statement.reset() }
            _ = try statement.step()
        }
    }

    /// Ends the read transaction of ``beginSnapshot()``; the WAL may then be checkpointed past it.
    func endSnapshot() {
        database.resetActiveStatements()
        try? database.execute("ROLLBACK")
    }

    /// Runs `select`, passing each row's values to `body`.
    func rows(_ select: SQLSelect, _ body: ([StoredValue]) throws -> Void) throws {
        let sql = SQLRenderer.render(select, in: SQLiteDialect())
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

    /// The single integer `select` returns (a count).
    func integer(_ select: SQLSelect) throws -> Int {
        var result = 0
        try rows(select) { values in
            if case .integer(let value) = values.first { result = Int(value) }
        }
        return result
    }

    /// SQLite's plan for `select` (`EXPLAIN QUERY PLAN`), one line per step.
    func queryPlan(_ select: SQLSelect) throws -> [String] {
        let sql = SQLRenderer.render(select, in: SQLiteDialect())
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
