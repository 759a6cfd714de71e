/// Projections: selected fields of the result, without resolving relations.
///
/// ```swift
/// let rows = Message.query(in: context).sorted(by: \.timestamp).select(\.id, \.text)   // [(String, String)]
/// let pairs = User.query(in: context).distinct(\.status, \.age)                        // [(UserStatus, Int)]
/// ```
extension QueryList {
    /// The fields of each entity of the result, in the query's order: one value per entity
    /// for one field, a tuple for several. Reads each stored row once; relations are not
    /// resolved (select a relation's id through ``group(by:)-(KeyPath<Entity,ToOne<Target,Directionality,Constraint>>)``
    /// or a nested query instead).
    public func select<each Value>(_ field: repeat KeyPath<Entity, each Value>, in context: Context? = nil) -> [(repeat each Value)] {
        let (list, context) = running(in: context ?? self.context ?? Context())
        let fields = (repeat each field)
        return list.execute(in: context).keys.compactMap { key in
            context.row(Entity.self, key).map { row in (repeat row[keyPath: each fields]) }
        }
    }

    /// The distinct combinations of two or more fields over the result, in the order of
    /// their first entity. Values are compared as indexes compare them (NaN equals NaN).
    public func distinct<First: IndexKeyConvertible, Second: IndexKeyConvertible, each Rest: IndexKeyConvertible>(
        _ first: KeyPath<Entity, First>, _ second: KeyPath<Entity, Second>, _ rest: repeat KeyPath<Entity, each Rest>,
        in context: Context? = nil
    ) -> [(First, Second, repeat each Rest)] {
        let (list, context) = running(in: context ?? self.context ?? Context())
        let others = (repeat each rest)
        var seen = Set<IndexKey>()
        var result: [(First, Second, repeat each Rest)] = []
        for key in list.execute(in: context).keys {
            guard let row = context.row(Entity.self, key) else { continue }
            if seen.insert(Self.indexKey(of: row, first, second, repeat each others)).inserted {
                result.append((row[keyPath: first], row[keyPath: second], repeat row[keyPath: each others]))
            }
        }
        return result
    }

    /// The distinct entities a to-one relation links the result's entities to, as ids in the
    /// order of their first entity; nil stands for entities not linked (or linked to one that
    /// is not stored). Read from the link column: no rows are read.
    public func distinct<Target, Directionality, Constraint>(
        _ relation: KeyPath<Entity, ToOne<Target, Directionality, Constraint>>, in context: Context? = nil
    ) -> [Target.ID?] {
        group(by: relation).count(in: context).map(\.key)
    }
}

extension QueryList {
    /// The index values of `fields` of `row`, as one key (grouping, distinct values, `distinct(on:)`).
    static func indexKey<each Value: IndexKeyConvertible>(of row: Entity, _ fields: repeat KeyPath<Entity, each Value>) -> IndexKey {
        var values: [IndexValue] = []
        for path in repeat each fields { values.append(row[keyPath: path].indexValue) }
        return IndexKey(values)
    }
}
