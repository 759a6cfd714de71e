import SchemaRuntime

/// What opening a store file does, decided from what the file records and the code's schema
/// before anything in the file changes: every refusal is thrown from here, so a refused
/// file stays byte for byte as it was.
enum OpenDecision {
    /// An empty file: create the tables.
    case create
    /// Written with the code's schema; `recordShape` when the recorded shape is missing or
    /// differs in what the fingerprint leaves out (former names, defaults).
    case current(recordShape: Bool)
    /// Written with an older schema: apply the plan.
    case migrate(MigrationPlan)
    /// Written with a newer schema whose known part is intact: read it as it is.
    case readNewer

    static func decide(_ metadata: StoreMetadata?, layout: StoreLayout, migrations: [Migration], policy: Store.MigrationPolicy,
                       readOnly: Bool, path: String) throws -> OpenDecision {
        guard let metadata else {
            if readOnly { throw StoreError.cannotOpen(path: path, reason: "the file holds no store yet; open it for writing once to create one") }
            return .create
        }
        if metadata.fingerprint == layout.fingerprint { return .current(recordShape: !readOnly && metadata.shape != layout.shape) }
        let plan = try Self.plan(from: metadata, to: layout, migrations: migrations, path: path)
        if plan.entitySources.isEmpty, !plan.old.entities.isEmpty {
            // Nothing in common: another app's store, or the wrong schema type, not an edit.
            throw StoreError.schemaMismatch(path: path, stored: metadata.fingerprint, expected: layout.fingerprint,
                                            storedLayout: plan.old.entities.map(\.name).joined(separator: ", ") + " (no entity in common with the code's schema)",
                                            expectedLayout: layout.description)
        }
        if metadata.history.contains(layout.fingerprint) {
            // The file went through this schema and on to a later one.
            if readOnly, plan.problems.isEmpty, plan.steps.allSatisfy(\.deletesData), knownPartIsIntact(plan, layout: layout) {
                return .readNewer
            }
            throw StoreError.newerSchema(path: path, unknown: plan.steps.map { "\($0)" })
        }
        guard plan.problems.isEmpty else {
            throw StoreError.migrationNeeded(path: path, problems: plan.problems.map(\.description), plan: plan.steps.map(\.description).joined(separator: "\n"))
        }
        if readOnly { throw StoreError.migrationRefused(path: path, reason: "the store is opened read-only", plan: plan.description) }
        switch policy {
        case .never:
            throw StoreError.migrationRefused(path: path, reason: "migrations are off (Options.migration = .never)", plan: plan.description)
        case .keepEverything where plan.deletesData:
            throw StoreError.migrationRefused(path: path, reason: "it would delete data (Options.migration = .keepEverything)", plan: plan.description)
        default:
            return .migrate(plan)
        }
    }

    /// The plan from the recorded shape to the code's; throws for a file that records none.
    static func plan(from metadata: StoreMetadata, to layout: StoreLayout, migrations: [Migration], path: String) throws -> MigrationPlan {
        guard let recorded = metadata.shape else {
            throw StoreError.schemaMismatch(path: path, stored: metadata.fingerprint, expected: layout.fingerprint,
                                            storedLayout: "(written before stores recorded their schema's shape, so it cannot be migrated)",
                                            expectedLayout: layout.description)
        }
        return MigrationPlanner.plan(from: recorded, to: layout.shape, migratedFields: Set(migrations.map(\.path)))
    }

    /// Whether every table and column the code reads is in the file under the same name,
    /// with links stored the same way: then reading only those ignores the rest.
    private static func knownPartIsIntact(_ plan: MigrationPlan, layout: StoreLayout) -> Bool {
        let stored = TableLayout(plan.old)
        for entity in layout.entities {
            guard stored.entityTables[entity.entityName] == entity.tableName, let old = plan.old.entity(entity.entityName) else { return false }
            if !Set(entity.columns.map(\.name)).isSubset(of: TableLayout.columnNames(of: old)) { return false }
        }
        return layout.links.allSatisfy { stored.relations[$0.path] == layout.tables.relations[$0.path] }
    }
}
