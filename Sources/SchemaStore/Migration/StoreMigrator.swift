import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// Applies a ``MigrationPlan`` to a store's database (SQLite or PostgreSQL, through
/// ``MigrationDatabase``), inside the transaction that opens it: a failure anywhere rolls
/// everything back and the database is unchanged.
///
/// Every old table first moves aside under a temporary name, so new tables can take any
/// name (renames may swap names, or differ only in case). Then each new table is the old one
/// renamed back when its columns (or links) are unchanged, or a new table filled from the old
/// rows (in their stored order, so load order is kept) with each column taken from its
/// source in the plan. Tables nothing took are dropped last: removed entities, fields and
/// relations, listed in the plan.
struct StoreMigrator {
    let database: any MigrationDatabase
    let plan: MigrationPlan
    let layout: StoreLayout
    let migrations: [MigrationPlan.FieldPath: Migration]
    let path: String

    private typealias Links = [(owner: StoredValue, targets: [StoredValue])]

    /// The tables holding archives and overlay records.
    static let archiveTable = quoted("schemagen:archive"), overlayTable = quoted("schemagen:overlay")

    private var storageOrder: String { database.dialect.storageOrderColumn }
    private func placeholder(_ index: Int) -> String { database.dialect.placeholder(index) }

    func run() throws {
        let old = TableLayout(plan.old)
        var aside: [String: String] = [:]
        var oldTables = plan.old.entities.map { old.entityTables[$0.name]! }
        for entity in plan.old.entities {
            for relation in entity.relations {
                if let table = old.linkTable(.init(entity.name, relation.name)) { oldTables.append(table) }
            }
        }
        for (offset, table) in oldTables.enumerated() {
            let temporary = "schemagen:migrating:\(offset)"
            try database.execute("DROP INDEX IF EXISTS \(quoted(table + ":order"))", [])
            try database.renameTable(table, to: temporary)
            aside[table] = temporary
        }
        // Links are read before any table is taken: a new link table may need several old ones.
        var linkContents: [String: Links] = [:]
        var keptLinkTables: [String: String] = [:]
        for link in layout.links {
            if let kept = keptTable(for: link, old: old, aside: aside) {
                keptLinkTables[link.name] = kept
            } else {
                linkContents[link.name] = try content(of: link, old: old, aside: aside)
            }
        }
        for entity in layout.entities {
            guard let oldName = plan.entitySources[entity.entityName], let oldShape = plan.old.entity(oldName),
                  let source = aside[old.entityTables[oldName]!] else {
                try database.createTable(entity)
                continue
            }
            if isUnchanged(entity, from: oldShape) {
                try database.renameTable(source, to: entity.tableName)
            } else {
                try database.createTable(entity)
                try copyRows(of: entity, from: oldShape, table: source)
                try database.execute("DROP TABLE \(quoted(source))", [])
            }
            aside[old.entityTables[oldName]!] = nil
        }
        for link in layout.links {
            if let kept = keptLinkTables[link.name] {
                try database.renameTable(kept, to: link.name)
                if link.isToMany { try database.createOrderIndex(link) }
                aside = aside.filter { $0.value != kept }
            } else {
                try database.createTable(link)
                try insert(linkContents[link.name] ?? [], into: link)
            }
        }
        // What nothing took: removed entities and relations, and link tables rebuilt elsewhere.
        for table in aside.values.sorted() { try database.execute("DROP TABLE \(quoted(table))", []) }
        try renameOverlayRecords(old: old)
        try migrateArchives()
    }

    /// Soft-deleted archives hold each entity as JSON under its entity's name: follow renames
    /// of the entity, and of its fields and relations (the JSON keys), so archives stay
    /// readable. Fields added with a default decode as their default; removed ones are
    /// ignored.
    private func migrateArchives() throws {
        guard try database.hasTable("schemagen:archive") else { return }
        for entity in layout.entities {
            guard let oldName = plan.entitySources[entity.entityName] else { continue }
            var keys: [String: String] = [:]   // old JSON key -> new
            for (field, source) in plan.columnSources[entity.entityName] ?? [:] {
                switch source {
                case .copy(let from) where from != field, .copyReplacingNil(let from) where from != field: keys[from] = field
                default: break
                }
            }
            for relation in entity.relations {
                if let source = plan.relationSources[.init(entity.entityName, relation.name)], source.relation != relation.name {
                    keys[source.relation] = relation.name
                }
            }
            guard oldName != entity.entityName || !keys.isEmpty else { continue }
            var updates: [(row: StoredValue, json: Data)] = []
            try database.forEachRow("SELECT \(storageOrder), archive FROM \(Self.archiveTable) WHERE name = \(placeholder(1))", [.text(oldName)]) { row in
                guard case .blob(let json) = row[1] else { return }
                updates.append((row[0], keys.isEmpty ? json : try Self.renamingKeys(in: json, keys)))
            }
            let update = "UPDATE \(Self.archiveTable) SET name = \(placeholder(1)), archive = \(placeholder(2)) WHERE \(storageOrder) = \(placeholder(3))"
            for row in updates { try database.execute(update, [.text("schemagen:renamed:" + entity.entityName), .blob(row.json), row.row]) }
        }
        // Two passes, through a prefix, so that swapped names stay apart.
        try removeRenamedPrefix(Self.archiveTable)
    }

    /// The archive JSON (`{"deletedAt": ..., "entity": {...}}`) with the entity's keys renamed.
    private static func renamingKeys(in json: Data, _ keys: [String: String]) throws -> Data {
        guard var archive = try JSONSerialization.jsonObject(with: json) as? [String: Any],
              let entity = archive["entity"] as? [String: Any] else { return json }
        var renamed: [String: Any] = [:]
        for (key, value) in entity { renamed[keys[key] ?? key] = value }
        archive["entity"] = renamed
        return try JSONSerialization.data(withJSONObject: archive, options: [.sortedKeys])
    }

    /// Edits of pack entities (``OverlayRecord``) name entities and link tables: follow
    /// their renames. In two passes, through a prefix, so that swapped names stay apart.
    private func renameOverlayRecords(old: TableLayout) throws {
        guard try database.hasTable("schemagen:overlay") else { return }
        let (first, second) = (placeholder(1), placeholder(2))
        var renames: [(kinds: String, old: String, new: String)] = []
        for (new, oldName) in plan.entitySources where new != oldName {
            renames.append(("'row', 'tombstone'", oldName, new))
        }
        for link in layout.links {
            guard let source = plan.relationSources[link.path], let oldTable = old.linkTable(source), oldTable != link.name else { continue }
            renames.append(("'links'", oldTable, link.name))
        }
        for rename in renames {
            try database.execute("UPDATE \(Self.overlayTable) SET name = \(first) WHERE kind IN (\(rename.kinds)) AND name = \(second)",
                                 [.text(Self.renamedPrefix + rename.new), .text(rename.old)])
        }
        try removeRenamedPrefix(Self.overlayTable)
    }

    /// Names being renamed first get this prefix, so that swapped names stay apart.
    private static let renamedPrefix = "schemagen:renamed:"

    private func removeRenamedPrefix(_ table: String) throws {
        try database.execute("UPDATE \(table) SET name = substr(name, CAST(\(placeholder(1)) AS integer)) WHERE name LIKE \(placeholder(2))",
                             [.integer(Int64(Self.renamedPrefix.count + 1)), .text(Self.renamedPrefix + "%")])
    }

    // MARK: Entities

    /// Whether the table can be kept as it is: same columns, each from itself.
    private func isUnchanged(_ entity: any AnyEntityPersister, from old: EntityShape) -> Bool {
        let sources = plan.columnSources[entity.entityName] ?? [:]
        return old.fields.count == entity.shape.fields.count && old.tracksUpdatedAt == entity.shape.tracksUpdatedAt
            && zip(old.fields, entity.shape.fields).allSatisfy { old, new in
                old.name == new.name && old.column == new.column && old.isNullable == new.isNullable && sources[new.name] == .copy(from: old.name)
            }
    }

    /// Copies the rows of the old table into the new one. Without a ``Migration`` closure in
    /// the plan, one `INSERT INTO ... SELECT` does it inside SQLite (no row passes through
    /// Swift); a closure needs each row, so then rows are copied one by one.
    private func copyRows(of entity: any AnyEntityPersister, from old: EntityShape, table: String) throws {
        let sources = plan.columnSources[entity.entityName] ?? [:]
        if !entity.shape.fields.contains(where: { sources[$0.name] == .migration }) {
            try copyRowsInSQL(of: entity, from: old, table: table)
        } else {
            try copyRowsOneByOne(of: entity, from: old, table: table)
        }
    }

    private func copyRowsInSQL(of entity: any AnyEntityPersister, from old: EntityShape, table: String) throws {
        let oldColumns = TableLayout.columnNames(of: old)
        let oldColumn = Dictionary(zip(old.fields.map(\.name), oldColumns), uniquingKeysWith: { first, _ in first })
        let sources = plan.columnSources[entity.entityName] ?? [:]
        let defaults = entity.columnDefaults
        // Each new column as an expression over the old row, with its bound values: defaults
        // are bound, never spliced into the SQL. `?` stands for the next placeholder here,
        // numbered once the statement is put together.
        let types = entity.columns.map(\.type)
        func value(_ value: StoredValue?, _ offset: Int) -> (sql: String, parameters: [StoredValue]) {
            guard let value, value != .null else { return ("NULL", []) }
            return ("\u{1}\(types[offset].rawValue)\u{1}", [value])
        }
        var columns: [(sql: String, parameters: [StoredValue])] = entity.shape.fields.enumerated().map { offset, field in
            switch sources[field.name] ?? .null {
            case .copy(let from): return (oldColumn[from].map(quoted) ?? "NULL", [])
            case .copyReplacingNil(let from):
                let fallback = value(defaults[offset], offset)
                return ("COALESCE(\(oldColumn[from].map(quoted) ?? "NULL"), \(fallback.sql))", fallback.parameters)
            case .defaultValue: return value(defaults[offset], offset)
            case .null, .migration: return ("NULL", [])
            }
        }
        if entity.shape.tracksUpdatedAt {
            columns.append((old.tracksUpdatedAt ? quoted(oldColumns[old.fields.count]) : "NULL", []))
        }
        // A required field that would be nil fails the migration naming the row, as a closure's would.
        let idColumn = quoted(oldColumns[0])
        for (offset, field) in entity.shape.fields.enumerated() where !field.isNullable {
            let check = numbered("SELECT \(idColumn) FROM \(quoted(table)) WHERE (\(columns[offset].sql)) IS NULL LIMIT 1")
            if let row = try database.firstRow(check, columns[offset].parameters) {
                throw StoreError.migrationFailed(path: path, reason: "\(entity.entityName).\(field.name) would be nil for id \(describe(row[0])), but it is required")
            }
        }
        let names = entity.columns.map { quoted($0.name) }
        try database.execute(numbered("""
            INSERT INTO \(quoted(entity.tableName)) (\(names.joined(separator: ", "))) \
            SELECT \(columns.map(\.sql).joined(separator: ", ")) FROM \(quoted(table)) ORDER BY \(storageOrder)
            """), columns.flatMap(\.parameters))
    }

    /// `sql` with each `\u{1}TYPE\u{1}` mark replaced by the next numbered placeholder of that type.
    private func numbered(_ sql: String) -> String {
        let parts = sql.split(separator: "\u{1}", omittingEmptySubsequences: false)
        var result = "", index = 0
        for (offset, part) in parts.enumerated() {
            if offset % 2 == 0 {
                result += part
            } else {
                index += 1
                result += database.placeholder(index, StoredType(rawValue: String(part)) ?? .text)
            }
        }
        return result
    }

    private func copyRowsOneByOne(of entity: any AnyEntityPersister, from old: EntityShape, table: String) throws {
        let oldColumns = TableLayout.columnNames(of: old)
        let select = "SELECT \(oldColumns.map(quoted).joined(separator: ", ")) FROM \(quoted(table)) ORDER BY \(storageOrder)"
        let names = entity.columns.map { quoted($0.name) }
        let placeholders = entity.columns.enumerated().map { database.placeholder($0.offset + 1, $0.element.type) }
        let insert = "INSERT INTO \(quoted(entity.tableName)) (\(names.joined(separator: ", "))) VALUES (\(placeholders.joined(separator: ", ")))"
        // Read first: PostgreSQL's connection runs one statement at a time.
        var rows: [[StoredValue]] = []
        try database.forEachRow(select, []) { rows.append($0) }
        let sources = plan.columnSources[entity.entityName] ?? [:]
        let defaults = entity.columnDefaults
        for selected in rows {
            var values: [String: StoredValue] = [:]
            for (offset, field) in old.fields.enumerated() { values[field.name] = selected[offset] }
            let row = MigrationRow(entity: old.name, values: values)
            var newValues: [StoredValue] = []
            for (offset, field) in entity.shape.fields.enumerated() {
                let value: StoredValue
                switch sources[field.name] ?? .null {
                case .copy(let from): value = values[from] ?? .null
                case .copyReplacingNil(let from): value = values[from].flatMap { $0 == .null ? nil : $0 } ?? defaults[offset] ?? .null
                case .defaultValue: value = defaults[offset] ?? .null
                case .null: value = .null
                case .migration: value = try migrate(row, field: field.name, of: entity)
                }
                if value == .null, !field.isNullable {
                    throw StoreError.migrationFailed(path: path, reason: "\(entity.entityName).\(field.name) would be nil for id \(describe(row.id)), but it is required")
                }
                newValues.append(value)
            }
            if entity.shape.tracksUpdatedAt {
                newValues.append(old.tracksUpdatedAt ? selected[old.fields.count] : .null)
            }
            try database.execute(insert, newValues)
        }
    }

    private func migrate(_ row: MigrationRow, field: String, of entity: any AnyEntityPersister) throws -> StoredValue {
        guard let migration = migrations[.init(entity.entityName, field)] else {
            preconditionFailure("the plan migrates \(entity.entityName).\(field), which has no migration")
        }
        do {
            return try migration.transform(row)
        } catch {
            let reason = (error as? StoreError).map { if case .migrationFailed(_, let reason) = $0 { reason } else { "\($0)" } } ?? "\(error)"
            throw StoreError.migrationFailed(path: path, reason: "the migration of \(entity.entityName).\(field) threw for id \(describe(row.id)): \(reason)")
        }
    }

    // MARK: Links

    /// The old table holding exactly this link's links, if there is one to keep as it is.
    private func keptTable(for link: LinkLayout, old: TableLayout, aside: [String: String]) -> String? {
        guard let source = plan.relationSources[link.path], let oldRelation = plan.old.entity(source.entity)?.relation(source.relation),
              oldRelation.isToMany == link.isToMany, let table = old.linkTable(source) else { return nil }
        return aside[table]
    }

    /// The links a new link table gets: its relation's old links, or else its inverse's read backwards.
    private func content(of link: LinkLayout, old: TableLayout, aside: [String: String]) throws -> Links {
        var links: Links = []
        if let source = plan.relationSources[link.path] {
            links = try oldLinks(source, old: old, aside: aside)
        } else if let inverse = layout.shape.entity(link.path.entity)?.relation(link.path.relation)?.inverse,
                  let source = plan.relationSources[.init(link.targetEntity.entityName, inverse)] {
            links = reversed(try oldLinks(source, old: old, aside: aside))
        }
        if !link.isToMany, let crowded = links.first(where: { $0.targets.count > 1 }) {
            throw StoreError.migrationFailed(path: path, reason: "\(link.path) is to-one now, but \(link.ownerEntity.entityName) "
                + "\(describe(crowded.owner)) has \(crowded.targets.count) links; remove the extra links with the old schema first")
        }
        return links
    }

    /// The links of an old relation, from its own table or read backwards from its inverse's.
    private func oldLinks(_ relation: TableLayout.RelationPath, old: TableLayout, aside: [String: String]) throws -> Links {
        switch old.relations[relation] {
        case .stored(let table, _):
            guard let name = aside[table] else { return [] }
            let isToMany = plan.old.entity(relation.entity)?.relation(relation.relation)?.isToMany ?? false
            return try readLinks(name, ordered: isToMany)
        case .derived(let inverse):
            guard let table = old.linkTable(inverse), let name = aside[table] else { return [] }
            let isToMany = plan.old.entity(inverse.entity)?.relation(inverse.relation)?.isToMany ?? false
            return reversed(try readLinks(name, ordered: isToMany))
        case nil:
            return []
        }
    }

    private func readLinks(_ table: String, ordered: Bool) throws -> Links {
        var links: Links = []
        try database.forEachRow("SELECT owner, target FROM \(quoted(table)) ORDER BY owner\(ordered ? ", position" : "")", []) { row in
            let owner = row[0], target = row[1]
            if links.last?.owner == owner { links[links.count - 1].targets.append(target) } else { links.append((owner, [target])) }
        }
        return links
    }

    /// The same links from the other side, each owner's targets in the order they are met.
    private func reversed(_ links: Links) -> Links {
        var result: Links = []
        var index: [StoredValue: Int] = [:]
        for (owner, targets) in links {
            for target in targets {
                if let position = index[target] {
                    result[position].targets.append(owner)
                } else {
                    index[target] = result.count
                    result.append((target, [owner]))
                }
            }
        }
        return result
    }

    private func insert(_ links: Links, into link: LinkLayout) throws {
        let (first, second, third) = (placeholder(1), placeholder(2), placeholder(3))
        let sql = link.isToMany
            ? "INSERT INTO \(quoted(link.name)) (owner, position, target) VALUES (\(first), \(second), \(third))"
            : "INSERT INTO \(quoted(link.name)) (owner, target) VALUES (\(first), \(second))"
        for (owner, targets) in links {
            for (position, target) in targets.enumerated() {
                try database.execute(sql, link.isToMany ? [owner, .integer(Int64(position)), target] : [owner, target])
            }
        }
    }

    private func describe(_ id: StoredValue) -> String {
        switch id {
        case .text(let text): text.debugDescription
        case .integer(let value): "\(value)"
        default: "\(id)"
        }
    }
}
