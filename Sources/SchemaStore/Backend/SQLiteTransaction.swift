import Foundation
import SchemaRuntime

/// The statements of one write transaction, prepared once per connection and reused.
struct SQLiteTransaction: StoreTransaction {
    let database: SQLiteDatabase

    func upsertRow(_ entity: any AnyEntityPersister, _ values: [StoredValue]) throws {
        try database.statement(cacheKey: "upsert " + entity.tableName, Self.upsertSQL(entity)).run(values)
    }

    private static func upsertSQL(_ entity: any AnyEntityPersister) -> String {
        let columns = entity.columns
        let names = columns.map { quoted($0.name) }
        let updates = names.dropFirst().map { "\($0) = excluded.\($0)" }
        // An upsert, not INSERT OR REPLACE: the row keeps its place (rowid), hence its load order.
        let conflict = updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET \(updates.joined(separator: ", "))"
        return """
            INSERT INTO \(quoted(entity.tableName)) (\(names.joined(separator: ", "))) \
            VALUES (\(Array(repeating: "?", count: names.count).joined(separator: ", "))) ON CONFLICT (\(names[0])) \(conflict)
            """
    }

    func deleteRow(_ entity: any AnyEntityPersister, id: StoredValue) throws {
        try database.statement(cacheKey: "delete " + entity.tableName, "DELETE FROM \(quoted(entity.tableName)) WHERE \(quoted(entity.columns[0].name)) = ?").run([id])
    }

    func setLink(_ link: LinkLayout, owner: StoredValue, target: StoredValue) throws {
        try database.statement(cacheKey: "set " + link.name, "INSERT INTO \(quoted(link.name)) (owner, target) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET target = excluded.target")
            .run([owner, target])
    }

    func removeLinks(_ link: LinkLayout, owner: StoredValue) throws {
        try database.statement(cacheKey: "clear " + link.name, "DELETE FROM \(quoted(link.name)) WHERE owner = ?").run([owner])
    }

    func removeLink(_ link: LinkLayout, owner: StoredValue, target: StoredValue) throws {
        try database.statement(cacheKey: "remove " + link.name, "DELETE FROM \(quoted(link.name)) WHERE owner = ? AND target = ?").run([owner, target])
    }

    func appendLinks(_ link: LinkLayout, owner: StoredValue, targets: [StoredValue]) throws {
        guard !targets.isEmpty else { return }
        let last = try database.statement(cacheKey: "last " + link.name, "SELECT max(position) FROM \(quoted(link.name)) WHERE owner = ?")
        try last.bind([owner])
        var next: Int64 = 0
        if try last.step(), case .integer(let position) = last.value(at: 0) { next = position + 1 }
        last.reset()
        let insert = try database.statement(cacheKey: "append " + link.name, "INSERT INTO \(quoted(link.name)) (owner, position, target) VALUES (?, ?, ?)")
        for target in targets {
            try insert.run([owner, .integer(next), target])
            next += 1
        }
    }

    func addOverlay(_ record: OverlayRecord) throws {
        try createOverlayTable()
        try database.statement(cacheKey: "overlay add", "INSERT OR REPLACE INTO \(SQLiteBackend.overlayTable) (kind, name, id, pack) VALUES (?, ?, ?, ?)")
            .run([.text(record.kind.rawValue), .text(record.name), record.id, .text(record.pack.uuidString)])
    }

    func removeOverlay(_ kind: OverlayRecord.Kind, name: String, id: StoredValue) throws {
        try createOverlayTable()
        try database.statement(cacheKey: "overlay remove", "DELETE FROM \(SQLiteBackend.overlayTable) WHERE kind = ? AND name = ? AND id = ?")
            .run([.text(kind.rawValue), .text(name), id])
    }

    func hasOverlay(_ kind: OverlayRecord.Kind, name: String, id: StoredValue) throws -> Bool {
        try createOverlayTable()
        let statement = try database.statement(cacheKey: "overlay has", "SELECT 1 FROM \(SQLiteBackend.overlayTable) WHERE kind = ? AND name = ? AND id = ?")
        defer { statement.reset() }
        try statement.bind([.text(kind.rawValue), .text(name), id])
        return try statement.step()
    }

    func upsertArchive(name: String, id: StoredValue, json: Data) throws {
        try createArchiveTable()
        try database.statement(cacheKey: "archive add", "INSERT OR REPLACE INTO \(SQLiteBackend.archiveTable) (name, id, archive) VALUES (?, ?, ?)")
            .run([.text(name), id, .blob(json)])
    }

    func removeArchive(name: String, id: StoredValue) throws {
        try createArchiveTable()
        try database.statement(cacheKey: "archive remove", "DELETE FROM \(SQLiteBackend.archiveTable) WHERE name = ? AND id = ?").run([.text(name), id])
    }

    func appendCommit(_ entries: [CommitLog.Entry]) throws -> Int64 {
        let last = try database.statement(cacheKey: "commit last", "SELECT max(\"commit\") FROM \(SQLiteBackend.commitLogTable)")
        var commit: Int64 = 1
        if try last.step(), case .integer(let number) = last.value(at: 0) { commit = number + 1 }
        last.reset()
        let insert = try database.statement(cacheKey: "commit add", "INSERT INTO \(SQLiteBackend.commitLogTable) (\"commit\", kind, name, id, change) VALUES (?, ?, ?, ?, ?)")
        for entry in entries {
            try insert.run([.integer(commit), .text(entry.kind.rawValue), .text(entry.name), entry.id, entry.change ?? .null])
        }
        try database.statement(cacheKey: "commit prune", "DELETE FROM \(SQLiteBackend.commitLogTable) WHERE \"commit\" <= ?")
            .run([.integer(commit - CommitLog.retainedCommits)])
        return commit
    }

    func fullTextIndexesPresent(_ layout: StoreLayout) throws -> Set<String> {
        let tables = try database.tableNames()
        return Set(layout.entities.flatMap(\.fullTextIndexes).map(\.termsTable).filter(tables.contains))
    }

    func updateFullText(_ index: FullTextLayout, id: StoredValue, text: String?) throws -> (documents: Int, length: Int) {
        let removed = try FullTextPostings.remove(index, id: id, in: database)
        guard let text else { return removed }
        let added = try FullTextPostings.add(index, id: id, text: text, in: database)
        return (removed.documents + added.documents, removed.length + added.length)
    }

    func addToFullTextTotals(_ index: FullTextLayout, documents: Int, length: Int) throws {
        try FullTextPostings.addToTotals(index, documents: documents, length: length, in: database)
    }

    /// Created on first use: stores that never archive never have the table.
    private func createArchiveTable() throws {
        try database.statement(cacheKey: "archive table", """
            CREATE TABLE IF NOT EXISTS \(SQLiteBackend.archiveTable) (name TEXT NOT NULL, id NOT NULL, archive BLOB NOT NULL, \
            PRIMARY KEY (name, id))
            """).run()
    }

    /// Created on first use: stores that never edit pack content never have the table.
    private func createOverlayTable() throws {
        try database.statement(cacheKey: "overlay table", SQLiteBackend.overlayTableDefinition).run()
    }
}
