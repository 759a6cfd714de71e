@_spi(SchemaStore) import SchemaRuntime

/// One entity type's table, and the moves between its rows and a ``Context``: the typed part
/// of a store, reached through the type-erased ``AnyEntityPersister``.
protocol AnyEntityPersister: Sendable {
    var entityName: String { get }
    /// The table's SQL name: the entity name, unless it differs only in case from another
    /// table's (SQL names are case-insensitive), see ``SQLNames``.
    var tableName: String { get }
    var table: ObjectIdentifier { get }
    /// The stored columns, `id` first, then the save time for entities that track it.
    var columns: [ColumnLayout] { get }
    /// The entity in the schema's shape.
    var shape: EntityShape { get }
    /// Per column: the schema default as stored, for rows a migration fills in.
    var columnDefaults: [StoredValue?] { get }
    var idType: StoredType { get }
    var relations: [RelationInfo] { get }
    /// The stored fields' columns by the key paths queries name them with.
    var fieldColumns: [FieldColumn] { get }
    /// The schema's ordered, hash and unique indexes as SQL indexes (``SQLIndex``).
    var sqlIndexes: [SQLIndex] { get }
    /// The schema's unique indexes: each one's name and its fields' columns (none for an
    /// index on a field stored as JSON).
    var uniqueIndexes: [(name: String, columns: [ColumnLayout])] { get }
    /// The schema's full-text indexes, as SQL keeps them for on-demand reads.
    var fullTextIndexes: [FullTextLayout] { get }
    /// The text each full-text index indexes for the row under `key`, in the order of
    /// ``fullTextIndexes``; nil if no entity is stored there.
    func indexedTexts(_ key: Int32, in context: Context) -> [String]?
    /// The same for a stored row.
    func indexedTexts(ofRow values: [StoredValue]) throws -> [String]

    /// The column values of the row under `key`, or nil if no entity is stored there.
    func rowValues(_ key: Int32, in context: Context) throws -> [StoredValue]?
    /// Whether an entity is stored under `key`.
    func hasRow(_ key: Int32, in context: Context) -> Bool
    /// How the row under `key` differs between two graphs of one store (``StoreChanges``).
    func rowChange(_ key: Int32, before: Context, after: Context) throws -> RowChange
    /// The id of `key` as stored.
    func idValue(_ key: Int32, in context: Context) -> StoredValue
    /// The id of `key` (also once forgotten), type-erased for ``StoreChanges``.
    func anyID(_ key: Int32, in context: Context) -> any Hashable & Sendable
    /// An id as ``anyID(_:in:)`` gives it, as stored.
    func storedID(_ id: any Hashable & Sendable) -> StoredValue
    /// A stored id, type-erased for ``StoreChanges``.
    func anyID(stored: StoredValue) throws -> any Hashable & Sendable
    /// Reads a row back into `context`; returns its key.
    @discardableResult
    func loadRow(_ values: [StoredValue], into context: inout Context) throws -> Int32
    /// The key of a stored id, interned if new.
    func loadKey(_ value: StoredValue, into context: inout Context) throws -> Int32
    /// ``loadRow(_:into:)`` and ``loadKey(_:into:)`` for many rows or ids at once: one call
    /// through the type-erased persister, and the generic work of each in one loop.
    func loadRows(_ rows: [[StoredValue]], into context: inout Context) throws -> [Int32]
    func loadKeys(_ values: [StoredValue], into context: inout Context) throws -> [Int32]
    /// An SQL filter keeping every stored row that holds one of `entity`'s unique index keys
    /// (maybe more: fields SQL does not compare as Swift does are left out).
    func uniqueHolderFilter(of entity: any EntityModelProtocol) throws -> SQLExpression
    /// ``uniqueHolderFilter(of:)`` for an entity given as its stored row.
    func uniqueHolderFilter(ofRow values: [StoredValue]) -> SQLExpression
    /// Stores the row another store committed, or removes the row of `id` when `values` is
    /// nil; links are left as they are. Inside a transaction, journaled.
    func refreshRow(_ values: [StoredValue]?, id: StoredValue, in context: inout Context) throws

    // Packs (EntityPersister+Packs.swift)

    /// The key of a stored id in `context`, if interned.
    func key(of value: StoredValue, in context: Context) throws -> Int32?
    /// The keys holding rows, in context order.
    func rowKeys(in context: Context) -> [Int32]
    func source(of key: Int32, in context: Context) -> EntitySource
    func setSource(_ source: EntitySource, of key: Int32, in context: inout Context)
    /// Removes a loaded row (a pack entity the user deleted), leaving its links.
    func removeLoadedRow(_ key: Int32, in context: inout Context)
    /// Whether the row under `key` in `context` equals the one under `otherKey` in `other`,
    /// save time included.
    func sameRow(_ key: Int32, in context: Context, as otherKey: Int32, in other: Context) throws -> Bool
    /// Saves the row of `otherKey` in `other` (a pack) under `key` in `context`, with its save time.
    func restoreRow(_ key: Int32, in context: inout Context, from otherKey: Int32, in other: Context) throws
    /// How this type's entities differ between two separately loaded graphs, by id.
    func changes(from before: Context, to after: Context, targets: [ObjectIdentifier: any AnyEntityPersister]) -> AnyEntityChanges
}

/// What happened to one row between two graphs.
enum RowChange: Sendable, Hashable {
    case inserted, updated, deleted, unchanged
}

/// A relation as the store sees it.
struct RelationInfo: Sendable {
    var name: String
    var slot: LinkSlot
    var target: ObjectIdentifier
    var targetName: String
    var inverse: LinkSlot?
}

/// A field's column, as the query compiler sees it.
struct FieldColumn: @unchecked Sendable {
    let keyPath: AnyKeyPath & Sendable
    /// The same property through `.desc`, as descending sorts name it (immutable, so shared
    /// safely although built at run time).
    let descendingKeyPath: AnyKeyPath?
    let column: ColumnLayout
    /// Whether SQL compares and sorts the column as Swift compares the field.
    let ordersInSQL: Bool

    /// Whether queries compare the column in Swift's string order (the `schemagen` collation,
    /// or PostgreSQL's NFC "C" order), as its SQL indexes must then order it: text fields
    /// SQL orders. An enum's text is compared for equality alone, as stored, so its indexes
    /// keep that order (indexed in Swift's order, no query could use them: 2026-12-08).
    var comparesInSwiftOrder: Bool { column.type == .text && ordersInSQL }
}

/// A column of an entity table.
struct ColumnLayout: Sendable, Hashable, Codable {
    /// The SQL name: the field's name, made unique ignoring case (see ``SQLNames``).
    var name: String
    var type: StoredType
    var isNullable: Bool
    var isJSON: Bool
}

struct EntityPersister<Entity: PersistentEntity>: AnyEntityPersister {
    let fields = Entity.storedFields
    /// `==` of the entity type when it is `Equatable` (generated entities are, unless a field's
    /// type is not): comparing two rows this way is much cheaper than encoding their columns.
    let equal: (@Sendable (Entity, Entity) -> Bool)? = {
        func equality<Equatable: Swift.Equatable & Sendable>(_: Equatable.Type) -> @Sendable (Entity, Entity) -> Bool {
            { ($0 as! Equatable) == ($1 as! Equatable) }
        }
        return (Entity.self as? any (Equatable & Sendable).Type).map { equality($0) }
    }()
    let shape: EntityShape
    let tableName: String
    let columns: [ColumnLayout]

    init(shape: EntityShape, tableName: String) {
        self.shape = shape
        self.tableName = tableName
        // The shape and the stored fields are generated together; a mismatch is hand-edited code.
        precondition(shape.fields.map(\.name) == fields.map(\.name) && shape.fields.map(\.column) == fields.map(\.type)
                     && shape.tracksUpdatedAt == Entity.tracksUpdatedAt,
                     "the shape of \(Entity.entityName) does not match its stored fields: regenerate the schema code")
        var columns = fields.map { ColumnLayout(name: $0.name, type: $0.type, isNullable: $0.isNullable, isJSON: $0.isJSON) }
        if Entity.tracksUpdatedAt { columns.append(ColumnLayout(name: TableLayout.updatedAtColumn, type: .real, isNullable: true, isJSON: false)) }
        for (index, name) in TableLayout.columnNames(of: shape).enumerated() { columns[index].name = name }
        self.columns = columns
        let columnByKeyPath = Dictionary(zip(fields, columns).map { ($0.keyPath as AnyKeyPath, $1.name) }, uniquingKeysWith: { first, _ in first })
        fullTextIndexes = Entity.indexes.filter(\.isFullText).map { index in
            FullTextLayout(entityName: Entity.entityName, indexName: index.name, keyPaths: index.textKeyPaths,
                           columns: index.textKeyPaths.map { columnByKeyPath[$0] ?? "?" })
        }
        // Kept: reads ask for them at every related or filtered list (``ListSteps``).
        sqlIndexes = Self.sqlIndexes(Self.fieldColumns(fields, columns), tableName: tableName)
    }

    let sqlIndexes: [SQLIndex]

    let fullTextIndexes: [FullTextLayout]
    /// The schema's full-text indexes, in the order of ``fullTextIndexes``.
    let fullTextDescriptors = Entity.indexes.filter { $0.isFullText }

    func indexedTexts(_ key: Int32, in context: Context) -> [String]? {
        Entity.indexedTexts(key, in: context, of: fullTextDescriptors)
    }

    func indexedTexts(ofRow values: [StoredValue]) throws -> [String] {
        let entity = try Entity(storedRow: StoredRow(values))
        return fullTextDescriptors.map { $0.indexedText(of: entity) }
    }

    var fieldColumns: [FieldColumn] { Self.fieldColumns(fields, columns) }

    private static func fieldColumns(_ fields: [StoredField<Entity>], _ columns: [ColumnLayout]) -> [FieldColumn] {
        zip(fields, columns).map { FieldColumn(keyPath: $0.keyPath, descendingKeyPath: $0.descendingKeyPath, column: $1, ordersInSQL: $0.ordersInSQL) }
    }

    /// The SQL indexes of `Entity.indexes` over `fieldColumns` (``sqlIndexes``).
    private static func sqlIndexes(_ fieldColumns: [FieldColumn], tableName: String) -> [SQLIndex] {
        let byKeyPath = Dictionary(fieldColumns.map { ($0.keyPath as AnyKeyPath, $0) }, uniquingKeysWith: { first, _ in first })
        return Entity.indexes.compactMap { index in
            let fields = index.indexedFields
            guard !fields.isEmpty else { return nil }
            var columns: [SQLIndex.Column] = []
            for field in fields {
                // A JSON field orders by its encoding, which helps no query.
                guard let column = byKeyPath[field.keyPath], !column.column.isJSON else { return nil }
                columns.append(SQLIndex.Column(name: column.column.name, descending: field.descending, swiftOrdered: column.comparesInSwiftOrder))
            }
            return SQLIndex(name: tableName + ":index:" + index.name, table: tableName, columns: columns)
        }
    }

    var uniqueIndexes: [(name: String, columns: [ColumnLayout])] {
        let byKeyPath = Dictionary(fieldColumns.map { ($0.keyPath as AnyKeyPath, $0.column) }, uniquingKeysWith: { first, _ in first })
        return Entity.indexes.compactMap { index in
            guard case .unique = index.kind else { return nil }
            let columns = index.indexedFields.compactMap { byKeyPath[$0.keyPath] }
            guard !columns.isEmpty, columns.count == index.indexedFields.count, !columns.contains(where: \.isJSON) else { return nil }
            return (index.name, columns)
        }
    }

    var columnDefaults: [StoredValue?] {
        fields.map(\.defaultValue) + (Entity.tracksUpdatedAt ? [nil] : [])
    }

    var entityName: String { Entity.entityName }
    var table: ObjectIdentifier { ObjectIdentifier(Entity.self) }
    var idType: StoredType { Entity.ID.storedType }

    let relations: [RelationInfo] = Entity.relations.map {
        RelationInfo(name: $0.name, slot: $0.slot, target: ObjectIdentifier($0.target), targetName: $0.target.entityName, inverse: $0.inverse)
    }

    // The readers of every row written go through the entity type's own (specialized)
    // code: ``PersistentEntity/storedRowValues(_:in:fields:)`` and its siblings.

    func rowValues(_ key: Int32, in context: Context) throws -> [StoredValue]? {
        try Entity.storedRowValues(key, in: context, fields: fields)
    }

    func idValue(_ key: Int32, in context: Context) -> StoredValue {
        Entity.storedIDValue(key, in: context)
    }

    func hasRow(_ key: Int32, in context: Context) -> Bool {
        Entity.hasStoredRow(key, in: context)
    }

    func rowChange(_ key: Int32, before: Context, after: Context) throws -> RowChange {
        switch (Entity.hasStoredRow(key, in: before), Entity.hasStoredRow(key, in: after)) {
        case (false, false): return .unchanged
        case (false, true): return .inserted
        case (true, false): return .deleted
        case (true, true):
            return try sameRow(key, in: after, as: key, in: before) ? .unchanged : .updated
        }
    }

    func anyID(_ key: Int32, in context: Context) -> any Hashable & Sendable {
        context.storedID(Entity.self, key: key)
    }

    func storedID(_ id: any Hashable & Sendable) -> StoredValue {
        (id as! Entity.ID).storedValue
    }

    func anyID(stored: StoredValue) throws -> any Hashable & Sendable {
        try Entity.ID(storedValue: stored)
    }

    @discardableResult
    func loadRow(_ values: [StoredValue], into context: inout Context) throws -> Int32 {
        let entity = try Entity(storedRow: StoredRow(values))
        var savedAt: Double?
        if Entity.tracksUpdatedAt, let stored = values.last, stored != .null { savedAt = try Double(storedValue: stored) }
        return try context.loadRow(entity, savedAt: savedAt)
    }

    func refreshRow(_ values: [StoredValue]?, id: StoredValue, in context: inout Context) throws {
        guard let values else {
            if let key = context.storedKey(of: try Entity.ID(storedValue: id), Entity.self) { context.removeRow(key) }
            return
        }
        let entity = try Entity(storedRow: StoredRow(values))
        var savedAt: Double?
        if Entity.tracksUpdatedAt, let stored = values.last, stored != .null { savedAt = try Double(storedValue: stored) }
        try context.refreshRow(entity, savedAt: savedAt)
    }

    func uniqueHolderFilter(of value: any EntityModelProtocol) throws -> SQLExpression {
        guard let entity = value as? Entity else { return .boolean(true) }
        return try uniqueHolderFilter { try fields[$0].value(entity) }
    }

    func uniqueHolderFilter(ofRow values: [StoredValue]) -> SQLExpression {
        // Fields and columns are in one order: the row holds each field's stored value.
        (try? uniqueHolderFilter { values[$0] }) ?? .boolean(true)
    }

    /// Rows that may share a unique key with the entity whose field at each position holds
    /// `value(position)`.
    private func uniqueHolderFilter(_ value: (Int) throws -> StoredValue) throws -> SQLExpression {
        var holders: [SQLExpression] = []
        for index in Entity.indexes where index.isUniqueIndex {
            var conditions: [SQLExpression] = []
            for (keyPath, _) in index.indexedFields {
                guard let position = fields.firstIndex(where: { $0.keyPath == keyPath }), fields[position].ordersInSQL else { continue }
                let stored = try value(position)
                // A key with nil collides with nothing.
                if stored == .null { conditions = [.boolean(false)]; break }
                let column = SQLExpression.column(columns[position].name)
                conditions.append(columns[position].type == .text ? .identical(.swiftOrdered(column), .swiftOrdered(.value(stored))) : .identical(column, .value(stored)))
            }
            holders.append(.all(conditions))
        }
        return .any(holders)
    }

    func loadKey(_ value: StoredValue, into context: inout Context) throws -> Int32 {
        context.loadKey(try Entity.ID(storedValue: value), Entity.self)
    }

    func loadRows(_ rows: [[StoredValue]], into context: inout Context) throws -> [Int32] {
        // Through the entity type's own conformance: specialized there, not generic here.
        try Entity.loadRows(rows, into: &context)
    }

    func loadKeys(_ values: [StoredValue], into context: inout Context) throws -> [Int32] {
        // Through the entity type's own conformance: specialized there, not generic here.
        try Entity.loadKeys(values, into: &context)
    }
}
