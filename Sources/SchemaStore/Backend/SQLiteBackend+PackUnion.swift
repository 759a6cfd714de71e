import Foundation
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif
@_spi(SchemaStore) import SchemaRuntime

/// What a connection attached to show a user store over its packs (``PackUnion``).
struct AttachedPacks {
    let union: PackUnion
    /// Reads the unions in place of the tables.
    var dialect: PackUnionDialect
    /// Where the unions read the edit records: the file's table, or an empty one of the
    /// connection while the file has none.
    var overlay: String
}

/// A connection of a store reading on demand over packs: the packs' files attached
/// read-only, read through the union's selects (``PackUnion``).
extension SQLiteBackend {
    /// The most packs a connection attaches: SQLite's compile-time limit (10 by default).
    static let attachLimit: Int = {
        guard let database = try? SQLiteDatabase(path: ":memory:") else { return 10 }
        defer { database.close() }
        return Int(sqlite3_limit(database.handle, SQLITE_LIMIT_ATTACHED, -1))
    }()

    /// Whether the store file at `path` has the SQL indexes and full-text tables `layout`
    /// wants (a writer opened it on demand), read without writing; false if it cannot tell.
    static func isPrepared(_ path: String, for layout: StoreLayout) -> Bool {
        guard let database = try? SQLiteDatabase(path: path, readOnly: true, create: false) else { return false }
        defer { database.close() }
        guard let names = try? Set(database.strings("SELECT name FROM sqlite_master WHERE type IN ('index', 'table')")) else { return false }
        let fullText = layout.entities.flatMap { $0.fullTextIndexes.flatMap(\.tables) }
        return SQLIndex.wanted(by: layout, in: SQLiteDialect()).keys.allSatisfy(names.contains) && fullText.allSatisfy(names.contains)
    }

    /// Attaches the packs of `union`. Called on a fresh connection to
    /// an opened store, outside any transaction. Throws
    /// ``PackError/tooManyPacksOnDemand(count:limit:)`` when SQLite cannot attach that many
    /// files (its compile-time limit, 10 by default).
    func attach(_ union: PackUnion) throws {
        guard union.packs.count <= Self.attachLimit else { throw PackError.tooManyPacksOnDemand(count: union.packs.count, limit: Self.attachLimit) }
        try mapped {
            for index in union.packs.indices { try database.execute(union.attachStatement(index)) }
            try readUnion(union)
        }
    }

    /// Reads the file's edit records table once it has one (another store made it since
    /// this connection attached); before a snapshot begins.
    func refreshPackUnion() throws {
        guard let attachedPacks, attachedPacks.overlay.hasPrefix("temp."),
              try mapped({ try database.hasTable("schemagen:overlay") }) else { return }
        try mapped { try readUnion(attachedPacks.union) }
    }

    /// Shows `union` in place of the packs attached now: the old packs' files are detached
    /// and the new ones attached. Outside any transaction.
    func reattach(_ union: PackUnion) throws {
        try mapped {
            database.clearStatementCache()
            for name in try database.strings("SELECT name FROM pragma_database_list") where name.hasPrefix("schemagen:pack:") {
                try database.execute("DETACH DATABASE \(quoted(name))")
            }
            attachedPacks = nil
        }
        try attach(union)
    }

    /// Creates the table of edit records if the file has none yet, so that every connection's
    /// unions read it from the start (a writer opening the store on demand over packs).
    func createOverlayTable() throws {
        try mapped { try database.execute(Self.overlayTableDefinition) }
    }

    /// Reads the tables through `union` from now on: where the edit records are, and which
    /// full-text indexes every file keeps (read through SQL only there).
    private func readUnion(_ union: PackUnion) throws {
        let overlay: String
        if try database.hasTable("schemagen:overlay") {
            overlay = "main." + Self.overlayTable
        } else {
            overlay = "temp." + quoted(PackUnion.emptyOverlay)
            try database.execute(Self.overlayTableDefinition(named: overlay, temporary: true))
        }
        var schemas = ["main"]
        for index in union.packs.indices { schemas.append(quoted(PackUnion.schema(ofPack: index))) }
        let tables = try schemas.map { Set(try database.strings("SELECT name FROM \($0).sqlite_master WHERE type = 'table'")) }
        var fullText = Set<String>()
        for entity in union.layout.entities {
            for index in entity.fullTextIndexes where tables.allSatisfy({ index.tables.allSatisfy($0.contains) }) { fullText.insert(index.termsTable) }
        }
        attachedPacks = AttachedPacks(union: union, dialect: PackUnionDialect(arms: union.arms(overlay: overlay, fullText: fullText)), overlay: overlay)
        database.clearStatementCache()
    }

    /// For a pack entity's list the user store keeps (a `links` record names it): how many
    /// links the user store holds for `owner`, and how many the packs hold; nil without a
    /// record. O(log n + the counts), counted in SQL.
    func keptListLengths(_ link: LinkLayout, owner: StoredValue) throws -> (user: Int, packs: Int)? {
        guard let attached = attachedPacks else { return nil }
        return try mapped {
            let kept = try values("SELECT 1 FROM \(attached.overlay) WHERE kind = 'links' AND name = ? AND id = ?", [.text(link.name), owner])
            guard !kept.isEmpty else { return nil }
            func count(_ table: String) throws -> Int {
                guard case .integer(let count) = try values("SELECT count(*) FROM \(table) WHERE owner = ?", [owner]).first else { return 0 }
                return Int(count)
            }
            let packs = try attached.union.packs.indices.reduce(0) { $0 + (try count("\(quoted(PackUnion.schema(ofPack: $1))).\(quoted(link.name))")) }
            return (try count("main.\(quoted(link.name))"), packs)
        }
    }

    /// The user's edit records that no longer apply: their pack is not installed, or no
    /// longer has the entity they name (the unions ignore them; a writer deletes them).
    /// O(records).
    func staleOverlayRecords() throws -> [OverlayRecord] {
        guard let attachedPacks else { return [] }
        let union = attachedPacks.union
        var records: [OverlayRecord] = []
        try loadOverlay { records.append($0) }
        return try records.filter { record in
            let entity = record.kind == .links ? union.layout.linkByName[record.name]?.ownerEntity : union.layout.entityByName[record.name]
            guard let entity, let pack = union.packs.firstIndex(where: { $0.manifest.id == record.pack }) else { return true }
            let id = SQLExpression.column(entity.columns[0].name)
            var found = false
            try rows(SQLSelect(output: .columns([id]), table: PackUnion.packTable(entity.tableName, pack: pack),
                               filter: .identical(id, .value(record.id)))) { _ in found = true }
            return !found
        }
    }

    /// The ids of the entities of `entity` from the pack at `index` that the user edited (an
    /// override of the row, or a replaced slot of one of its stored links) or deleted, each
    /// in the pack's order: what the edit records say, as ``PackDiff`` finds it in a resident
    /// store (a record exists exactly while the entity differs from its pack).
    /// O(records of the pack × log n).
    func packEdits(_ entity: any AnyEntityPersister, pack index: Int) throws -> (edited: [StoredValue], deleted: [StoredValue]) {
        guard let attached = attachedPacks else { return ([], []) }
        let union = attached.union, overlay = attached.overlay
        let id = quoted(entity.columns[0].name)
        let table = "\(quoted(PackUnion.schema(ofPack: index))).\(quoted(entity.tableName))"
        let links = union.layout.links.filter { $0.owner == entity.table }.map(\.name)
        let linkNames = links.isEmpty ? "" : " OR (o.kind = 'links' AND o.name IN (\(links.map { _ in "?" }.joined(separator: ", "))))"
        let tombstones = "SELECT o.id FROM \(overlay) AS o WHERE o.kind = 'tombstone' AND o.name = ? AND o.pack = ?"
        let pack = StoredValue.text(union.packs[index].manifest.id.uuidString), name = StoredValue.text(entity.entityName)
        func ids(_ sql: String, _ bindings: [StoredValue]) throws -> [StoredValue] { try mapped { try values(sql, bindings) } }
        let deleted = try ids("SELECT p.\(id) FROM \(table) AS p WHERE p.\(id) IN (\(tombstones)) ORDER BY p.rowid", [name, pack])
        let edited = try ids("""
            SELECT p.\(id) FROM \(table) AS p WHERE p.\(id) IN (SELECT o.id FROM \(overlay) AS o WHERE o.pack = ? AND \
            ((o.kind = 'row' AND o.name = ?)\(linkNames))) AND p.\(id) NOT IN (\(tombstones)) ORDER BY p.rowid
            """, [pack, name] + links.map(StoredValue.text) + [name, pack])
        return (edited, deleted)
    }

    /// The union's `(documents, length)` for `index`, on a connection showing packs.
    func unionFullTextTotals(_ index: FullTextLayout, attached: AttachedPacks) throws -> (documents: Int64, length: Int64) {
        guard let entity = attached.union.layout.entityByName[index.entityName] else {
            throw StoreError.corrupt(path: location, reason: "no entity \(index.entityName) for full-text index \(index.indexName)")
        }
        let statement = try database.statement(attached.union.fullTextTotals(index, of: entity, overlay: attached.overlay))
        defer { statement.reset() }
        guard try statement.step(), case .integer(let documents) = statement.value(at: 0), case .integer(let length) = statement.value(at: 1) else {
            throw StoreError.corrupt(path: location, reason: "the totals of full-text index \(index.indexName) are missing")
        }
        return (documents, length)
    }
}
