/// What a store keeps of a schema: its entities with their fields' column types, and its
/// relations. `schemagen` generates it (`<Target>Schema.shape`); a store records it in its
/// file, and compares the recorded shape with the code's to plan a migration
/// (``MigrationPlanner``). It also names what each element was called before
/// (`renamedFrom:` in the schema), so data follows a rename instead of being dropped.
///
/// Indexes, merge rules and documentation are not part of it: a store rebuilds indexes in
/// memory, so changing them never needs a migration.
public struct SchemaShape: Codable, Hashable, Sendable {
    /// Every entity, in schema order.
    public var entities: [EntityShape]

    public init(entities: [EntityShape]) {
        self.entities = entities
    }

    /// The entity named `name`.
    public func entity(_ name: String) -> EntityShape? {
        entities.first { $0.name == name }
    }
}
