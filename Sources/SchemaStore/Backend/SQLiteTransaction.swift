import Foundation
import SchemaRuntime

/// The statements of one write transaction, prepared once per connection and reused.
struct SQLiteTransaction: StoreTransaction {
    let database: SQLiteDatabase
    /// The write's full-text changes per index (terms table), written with its totals.
    private let fullText = PendingFullText()

    private final class PendingFullText {
        var changes: [String: FullTextChanges] = [:]
    }

    /// An upsert even for new rows: SQLite takes it as fast as a plain insert (a first
    /// commit of 100,000 messages spent 0.72-0.76 s in SQL either way, 0.73-0.79 s with
    /// inserts; `schemastore-bench 1000 100 3 first-commit`, 2026-11-26).
    func upsertRow(_ entity: any AnyEntityPersister, _ values: [StoredValue], isNew: Bool) throws {
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
            VALUES (\(SQLiteDatabase.placeholders(names.count))) ON CONFLICT (\(names[0])) \(conflict)
            """
    }

    func deleteRow(_ entity: any AnyEntityPersister, id: StoredValue) throws {
        try database.statement(cacheKey: "delete " + entity.tableName, "DELETE FROM \(quoted(entity.tableName)) WHERE \(quoted(entity.columns[0].name)) = ?").run([id])
    }

    func setLink(_ link: LinkLayout, owner: StoredValue, target: StoredValue, isNew: Bool) throws {
        try database.statement(cacheKey: "set " + link.name, "INSERT INTO \(quoted(link.name)) (owner, target) VALUES (?, ?) ON CONFLICT (owner) DO UPDATE SET target = excluded.target")
            .run([owner, target])
    }

    func removeLinks(_ link: LinkLayout, owner: StoredValue) throws {
        try database.statement(cacheKey: "clear " + link.name, "DELETE FROM \(quoted(link.name)) WHERE owner = ?").run([owner])
    }

    func removeLink(_ link: LinkLayout, owner: StoredValue, target: StoredValue) throws {
        try database.statement(cacheKey: "remove " + link.name, "DELETE FROM \(quoted(link.name)) WHERE owner = ? AND target = ?").run([owner, target])
    }

    func appendLinks(_ link: LinkLayout, owner: StoredValue, targets: [StoredValue], afterRemovingAll: Bool) throws {
        guard !targets.isEmpty else { return }
        var next: Int64 = 0
        if !afterRemovingAll {
            let last = try database.statement(cacheKey: "last " + link.name, "SELECT max(position) FROM \(quoted(link.name)) WHERE owner = ?")
            try last.bind([owner])
            if try last.step(), case .integer(let position) = last.value(at: 0) { next = position + 1 }
            last.reset()
        }
        var rows: [StoredValue] = []
        rows.reserveCapacity(3 * targets.count)
        for target in targets {
            rows += [owner, .integer(next), target]
            next += 1
        }
        try database.insertRows(rows, width: 3, head: "INSERT INTO \(quoted(link.name)) (owner, position, target)", cacheKey: "append " + link.name)
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

    func appendCommit(_ entries: [CommitLog.Entry]) throws -> Int64? {
        let last = try database.statement(cacheKey: "commit last", "SELECT max(\"commit\") FROM \(SQLiteBackend.commitLogTable)")
        var commit: Int64 = 1
        if try last.step(), case .integer(let number) = last.value(at: 0) { commit = number + 1 }
        last.reset()
        var rows: [StoredValue] = []
        rows.reserveCapacity(5 * entries.count)
        for entry in entries { rows += [.integer(commit), .text(entry.kind.rawValue), .text(entry.name), entry.id, entry.change ?? .null] }
        try database.insertRows(rows, width: 5, head: "INSERT INTO \(SQLiteBackend.commitLogTable) (\"commit\", kind, name, id, change)", cacheKey: "commit add")
        try database.statement(cacheKey: "commit prune", "DELETE FROM \(SQLiteBackend.commitLogTable) WHERE \"commit\" <= ?")
            .run([.integer(commit - CommitLog.retainedCommits)])
        return commit
    }

    func fullTextIndexesPresent(_ layout: StoreLayout) throws -> Set<String> {
        let tables = try database.tableNames()
        return layout.fullTextTermsTables.filter(tables.contains)
    }

    func updateFullText(_ index: FullTextLayout, id: StoredValue, text: String?, isNew: Bool) throws -> (documents: Int, length: Int) {
        fullText.changes[index.termsTable, default: FullTextChanges()].update(id: id, text: text, isNew: isNew)
    }

    func addToFullTextTotals(_ index: FullTextLayout, documents: Int, length: Int) throws {
        guard let changes = fullText.changes.removeValue(forKey: index.termsTable) else { return }
        try FullTextPostings.write(changes, to: index, adding: (documents, length), in: database)
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
