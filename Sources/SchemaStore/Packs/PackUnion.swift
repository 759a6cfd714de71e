import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// A user store over its installed packs as SQL sees it, for a store reading on demand
/// (docs/Packs.md, "On demand"): every pack's file is attached read-only to each of the
/// store's connections, and each table is read as a union of selects (a subquery in place
/// of the table, ``PackUnionDialect``) that holds what the resident store's unified graph
/// holds (``UserLayerLoader``), so the compiled queries run on it unchanged.
///
/// - An entity's union has every column of the table, then `schemagen:order` (the union's
///   storage order: the packs' rows in installation order, each at its place in its file, an
///   edited one included, then the user's own rows) and `schemagen:source` (0 for the
///   user's, n for the n-th pack's).
/// - A pack row is hidden by the user's override of it (whose values show in its place) or
///   tombstone; a user row kept for an override that no longer applies (its pack is gone, or
///   no longer has the entity) is hidden, as the resident store ignores it.
/// - A link table's union holds the user's link slots and the packs' slots the user did not
///   replace; to-many positions are ordered by layer, earlier packs first, as loading
///   merges them.
/// - A full-text terms table's union holds the postings of the visible rows; the totals
///   BM25 needs are the files' totals less the hidden documents'
///   (``fullTextTotals(_:of:overlay:)``), O(edit records).
struct PackUnion: @unchecked Sendable {
    /// In installation order.
    let packs: [Pack]
    let layout: StoreLayout

    /// The union's storage order, and the layer each row comes from.
    static let orderColumn = "schemagen:order"
    static let sourceColumn = "schemagen:source"
    /// A layer's rows are ordered within it by their place in its file (a rowid or a link
    /// position, below 2^40, about 10^12, in any file SQLite fills one row at a time); the
    /// layer number sits above these bits.
    static let layerShift = 40

    /// What the unions read the user's edit records from when the user store has none yet
    /// (an empty table of the connection, under a name the store's own statements never use).
    static let emptyOverlay = "schemagen:no-overlay"

    /// The schema name the pack at `index` (in installation order) is attached under.
    static func schema(ofPack index: Int) -> String { "schemagen:pack:\(index + 1)" }

    /// A name for ``SQLSelect`` meaning `table` in the file of the pack at `index` alone
    /// (``PackUnionDialect`` resolves it).
    static func packTable(_ table: String, pack index: Int) -> String { schema(ofPack: index) + "/" + table }

    /// The source of a row whose `schemagen:source` is `number`.
    func source(ofNumber number: Int64) -> EntitySource {
        number == 0 ? .user : .pack(packs[Int(number) - 1].manifest.id)
    }

    // MARK: Attaching

    /// The statement attaching the pack at `index` read-only (run outside any transaction).
    func attachStatement(_ index: Int) -> String {
        let path = packs[index].storeURL.path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? packs[index].storeURL.path
        return "ATTACH DATABASE \(Self.literal("file:" + path + "?mode=ro")) AS \(quoted(Self.schema(ofPack: index)))"
    }

    /// The selects whose union stands for each table (each names every column), given
    /// where the edit records are (`overlay`, a qualified table) and which full-text
    /// indexes every file keeps (their terms tables). Queries read them inline, as
    /// subqueries (``PackUnionDialect``): nothing is created on the connection.
    func arms(overlay: String, fullText: Set<String>) -> [String: [String]] {
        var arms: [String: [String]] = [:]
        for entity in layout.entities {
            arms[entity.tableName] = entityArms(entity, overlay: overlay)
            for index in entity.fullTextIndexes where fullText.contains(index.termsTable) {
                arms[index.termsTable] = postingArms(index, of: entity, overlay: overlay)
            }
        }
        for link in layout.links { arms[link.name] = linkArms(link, overlay: overlay) }
        return arms
    }

    private func entityArms(_ entity: any AnyEntityPersister, overlay: String) -> [String] {
        let name = Self.literal(entity.entityName), id = quoted(entity.columns[0].name), table = quoted(entity.tableName)
        func columns(_ alias: String) -> String { entity.columns.map { "\(alias).\(quoted($0.name))" }.joined(separator: ", ") }
        let order = quoted(Self.orderColumn), source = quoted(Self.sourceColumn)
        var arms: [String] = []
        for index in packs.indices {
            let pack = "\(quoted(Self.schema(ofPack: index))).\(table)", uuid = Self.literal(packs[index].manifest.id.uuidString)
            let layer = "(\(index) << \(Self.layerShift))"
            arms.append("""
                SELECT \(columns("p")), \(layer) + p.rowid AS \(order), \(index + 1) AS \(source) FROM \(pack) AS p \
                WHERE NOT EXISTS (SELECT 1 FROM \(overlay) AS o WHERE o.kind IN ('row', 'tombstone') AND o.name = \(name) \
                AND o.id = p.\(id) AND o.pack = \(uuid))
                """)
            arms.append("""
                SELECT \(columns("u")), \(layer) + p.rowid AS \(order), \(index + 1) AS \(source) FROM \(overlay) AS o \
                JOIN \(pack) AS p ON p.\(id) = o.id JOIN main.\(table) AS u ON u.\(id) = o.id \
                WHERE o.kind = 'row' AND o.name = \(name) AND o.pack = \(uuid)
                """)
        }
        arms.append("""
            SELECT \(columns("u")), (\(packs.count) << \(Self.layerShift)) + u.rowid AS \(order), 0 AS \(source) FROM main.\(table) AS u \
            WHERE NOT EXISTS (SELECT 1 FROM \(overlay) AS o WHERE o.kind = 'row' AND o.name = \(name) AND o.id = u.\(id))
            """)
        return arms
    }

    private func linkArms(_ link: LinkLayout, overlay: String) -> [String] {
        let name = Self.literal(link.name), table = quoted(link.name)
        func columns(_ alias: String, layer: Int) -> String {
            guard link.isToMany else { return "\(alias).owner, \(alias).target" }
            return "\(alias).owner, (\(layer) << \(Self.layerShift)) + \(alias).position AS position, \(alias).target"
        }
        let record = "SELECT 1 FROM \(overlay) AS o WHERE o.kind = 'links' AND o.name = \(name)"
        let owner = link.ownerEntity
        var arms = packs.indices.map { index in
            "SELECT \(columns("p", layer: index)) FROM \(quoted(Self.schema(ofPack: index))).\(table) AS p " +
                "WHERE NOT EXISTS (\(record) AND o.id = p.owner AND \(applies("o", owner)))"
        }
        arms.append("SELECT \(columns("u", layer: packs.count)) FROM main.\(table) AS u WHERE NOT EXISTS (\(record) AND o.id = u.owner AND NOT \(applies("o", owner)))")
        return arms
    }

    private func postingArms(_ index: FullTextLayout, of entity: any AnyEntityPersister, overlay: String) -> [String] {
        let name = Self.literal(entity.entityName), table = quoted(index.termsTable)
        var arms = packs.indices.map { pack in
            "SELECT t.term, t.id, t.count FROM \(quoted(Self.schema(ofPack: pack))).\(table) AS t WHERE NOT EXISTS (SELECT 1 FROM \(overlay) AS o " +
                "WHERE o.kind IN ('row', 'tombstone') AND o.name = \(name) AND o.id = t.id AND o.pack = \(Self.literal(packs[pack].manifest.id.uuidString)))"
        }
        arms.append("SELECT t.term, t.id, t.count FROM main.\(table) AS t WHERE NOT EXISTS (SELECT 1 FROM \(overlay) AS o " +
                    "WHERE o.kind = 'row' AND o.name = \(name) AND o.id = t.id AND NOT \(applies("o", entity)))")
        return arms
    }

    /// Whether the edit record `alias` applies: its pack is installed and has the entity (of
    /// `entity`) it names.
    private func applies(_ alias: String, _ entity: any AnyEntityPersister) -> String {
        let id = quoted(entity.columns[0].name), table = quoted(entity.tableName)
        let cases = packs.indices.map { index in
            "(\(alias).pack = \(Self.literal(packs[index].manifest.id.uuidString)) AND EXISTS " +
                "(SELECT 1 FROM \(quoted(Self.schema(ofPack: index))).\(table) AS e WHERE e.\(id) = \(alias).id))"
        }
        return cases.isEmpty ? "0" : "(" + cases.joined(separator: " OR ") + ")"
    }

    // MARK: Full text

    /// The statement reading the union's `(documents, length)` for `index`: every file's
    /// totals, less the documents the union hides (pack documents the user edited or
    /// deleted, user documents kept for edits that no longer apply). O(edit records).
    func fullTextTotals(_ index: FullTextLayout, of entity: any AnyEntityPersister, overlay: String) -> String {
        let name = Self.literal(entity.entityName), totals = quoted(index.totalsTable), documents = quoted(index.documentsTable)
        var added = ["main.\(totals)"], hidden: [String] = []
        for pack in packs.indices {
            let schema = quoted(Self.schema(ofPack: pack))
            added.append("\(schema).\(totals)")
            hidden.append("SELECT d.length FROM \(overlay) AS o JOIN \(schema).\(documents) AS d ON d.id = o.id WHERE o.kind IN ('row', 'tombstone') " +
                          "AND o.name = \(name) AND o.pack = \(Self.literal(packs[pack].manifest.id.uuidString))")
        }
        hidden.append("SELECT d.length FROM \(overlay) AS o JOIN main.\(documents) AS d ON d.id = o.id WHERE o.kind = 'row' " +
                      "AND o.name = \(name) AND NOT \(applies("o", entity))")
        let files = added.map { "SELECT documents, length FROM \($0)" }.joined(separator: " UNION ALL ")
        return """
            SELECT CAST((SELECT total(documents) FROM (\(files))) - (SELECT count(*) FROM (\(hidden.joined(separator: " UNION ALL ")))) AS INTEGER), \
            CAST((SELECT total(length) FROM (\(files))) - (SELECT total(length) FROM (\(hidden.joined(separator: " UNION ALL ")))) AS INTEGER)
            """
    }

    /// `text` as an SQL string literal (schema names and pack ids: never a user's values).
    static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
}

extension PackUnion {
    /// `select` also reading each row's source last, for rows of an entity's union.
    static func readingSources(_ select: SQLSelect, of union: PackUnion?) -> SQLSelect {
        guard union != nil, case .columns(let columns) = select.output else { return select }
        var select = select
        select.output = .columns(columns + [.column(sourceColumn)])
        return select
    }

    /// Marks the rows `rows` (read by a select from ``readingSources(_:of:)``, loaded under
    /// `keys`) with their sources, and returns them without the source column.
    func markSources(_ rows: [[StoredValue]], keys: [Int32], of entity: any AnyEntityPersister, in context: inout Context) -> [[StoredValue]] {
        var values: [[StoredValue]] = []
        values.reserveCapacity(rows.count)
        for (row, key) in zip(rows, keys) {
            if case .integer(let number) = row.last, number != 0 { entity.setSource(source(ofNumber: number), of: key, in: &context) }
            values.append(Array(row.dropLast()))
        }
        return values
    }
}
