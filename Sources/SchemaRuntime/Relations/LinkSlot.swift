/// Where a relation's links are stored in its entity's table: a to-one or to-many column.
///
/// Generated code numbers the to-one and the to-many relations of each entity separately,
/// in schema order, and names the inverse's slot on the target entity.
public struct LinkSlot: Hashable, Sendable, CustomStringConvertible {
    /// Whether the slot holds one link or an ordered list of links per entity.
    public enum Cardinality: Hashable, Sendable { case toOne, toMany }

    public let cardinality: Cardinality
    public let column: Int

    /// The slot of the `column`-th to-one relation.
    public static func toOne(_ column: Int) -> LinkSlot { LinkSlot(cardinality: .toOne, column: column) }

    /// The slot of the `column`-th to-many relation.
    public static func toMany(_ column: Int) -> LinkSlot { LinkSlot(cardinality: .toMany, column: column) }

    public var description: String { "\(cardinality == .toOne ? "toOne" : "toMany")(\(column))" }
}
