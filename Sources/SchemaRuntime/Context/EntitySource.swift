import Foundation

/// Where an entity in a context comes from: the user's own data, or a read-only content pack
/// layered under it (SchemaStore's packs). A context built in memory holds user entities only.
///
/// Restrict a query to some sources with ``QueryList/from(_:)-swift.method``:
///
/// ```swift
/// let mine = Template.query().from(.user).resolve(in: store.context)
/// let shipped = Template.query().from(.pack(starterID)).resolve(in: store.context)
/// ```
public enum EntitySource: Hashable, Sendable, Codable {
    /// Saved by the app into its own store.
    case user
    /// Shipped in the pack with this manifest id. An entity the user edited or deleted keeps
    /// this source: the edit is an override of the pack's entity, not a new one.
    case pack(UUID)
}
