@_spi(SchemaStore) import SchemaRuntime

/// Reads the whole graph of a user store over its packs from a connection showing their
/// union (``PackUnion``): what ``UserLayerLoader`` builds from the files, read through the
/// union's selects, so it is the snapshot's state. O(union): for the queries an on-demand
/// snapshot cannot narrow in SQL.
struct UnionGraphLoader {
    let layout: StoreLayout
    let backend: any SnapshotConnection
    let union: PackUnion

    func load() throws -> Context {
        var context = Context()
        for entity in layout.entities {
            var rows: [[StoredValue]] = []
            let select = SQLSelect(output: .columns(entity.columns.map { .column($0.name) }), table: entity.tableName,
                                   order: [SQLOrderTerm(expression: .storageOrder(), descending: false)])
            try backend.rows(PackUnion.readingSources(select, of: union)) { rows.append($0) }
            try backend.reading(entity.entityName) {
                let keys = try entity.loadKeys(rows.map { $0[0] }, into: &context)
                _ = try entity.loadRows(union.markSources(rows, keys: keys, of: entity, in: &context), into: &context)
            }
        }
        for link in layout.links {
            var order = [SQLOrderTerm(expression: .column("owner"), descending: false)]
            if link.isToMany { order.append(SQLOrderTerm(expression: .column("position"), descending: false)) }
            var pairs: [(owner: StoredValue, target: StoredValue)] = []
            try backend.rows(SQLSelect(output: .columns([.column("owner"), .column("target")]), table: link.name, order: order)) {
                pairs.append(($0[0], $0[1]))
            }
            try backend.reading(link.name) {
                let owners = try link.ownerEntity.loadKeys(pairs.map(\.owner), into: &context)
                let targets = try link.targetEntity.loadKeys(pairs.map(\.target), into: &context)
                for run in LinkLookup.runs(owners) {
                    let owner = owners[run.lowerBound]
                    // A to-one slot keeps its first link, as loading the files one by one does.
                    let slot = link.isToMany ? Array(targets[run]) : [targets[run.lowerBound]]
                    if link.isToMany {
                        context.loadLinks(link.owner, link.slot, of: owner, to: slot, targetTable: link.target)
                    } else {
                        context.loadLink(link.owner, link.slot, of: owner, to: slot[0], targetTable: link.target)
                    }
                    if let inverse = link.derivedInverse {
                        for target in slot { context.loadLink(link.target, inverse, of: target, to: owner, targetTable: link.owner) }
                    }
                }
            }
        }
        try GraphLoader.loadArchives(layout: layout, backend: backend, into: &context)
        return context
    }
}
