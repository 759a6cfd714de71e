@_spi(SchemaStore) import SchemaRuntime

extension ListSteps {
    /// The SQL index of `entity` the database has (`hasIndex`) that a walk of this
    /// spelling takes down `term`: one whose first column is `term`'s (either direction: an
    /// index is read backwards as readily); nil without one (a walk would then read and sort
    /// the whole table). The term is a column, so it binds no value however often a spelling
    /// writes it.
    func index(walking term: SQLOrderTerm, of entity: any AnyEntityPersister, hasIndex: (SQLIndex) -> Bool) -> SQLIndex? {
        let (expression, swiftOrdered) = if case .swiftOrdered(let inner) = term.expression { (inner, true) } else { (term.expression, false) }
        guard case .column(let name, let table) = expression, table == nil || table == entity.tableName,
              let column = entity.columns.first(where: { $0.name == name }) else { return nil }
        // NULL sorts first ascending, and a walk down a range of the index would miss it.
        if self == .crossJoin, column.isNullable, !term.descending { return nil }
        return Self.index(startingWith: name, swiftOrdered: swiftOrdered, of: entity, hasIndex: hasIndex)
    }

    /// The SQL index of `entity` the database has whose first column is `name`, ordered in
    /// Swift's string order or not as `swiftOrdered` says.
    static func index(startingWith name: String, swiftOrdered: Bool, of entity: any AnyEntityPersister,
                      hasIndex: (SQLIndex) -> Bool) -> SQLIndex? {
        entity.sqlIndexes.first { index in
            (index.columns.first.map { $0.name == name && $0.swiftOrdered == swiftOrdered } ?? false) && hasIndex(index)
        }
    }
}
