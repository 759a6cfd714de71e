/// Sorting by metadata the context keeps for each entity: `sorted(by: .updatedAt)`,
/// `sorted(by: .updatedAt.desc)`.
public struct MetadataSort: Sendable, Equatable {
    let descending: Bool

    /// When the entity was last saved, oldest first (`metadata updatedAt` in the schema).
    public static let updatedAt = MetadataSort(descending: false)

    /// The same order reversed: newest first.
    public var desc: MetadataSort { MetadataSort(descending: !descending) }
}
