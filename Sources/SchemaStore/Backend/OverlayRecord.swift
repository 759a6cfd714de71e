import Foundation
import SchemaRuntime

/// What a user store records about its edits of pack entities (docs/Packs.md, "Editing
/// pack content"), one record per edited entity or link slot, in the `schemagen:overlay`
/// table. The edits themselves are ordinary rows and links of the user store; a record names
/// the pack they belong to, so removing or updating a pack drops exactly its edits.
struct OverlayRecord: Hashable, Sendable {
    enum Kind: String, Sendable {
        /// The user store's row with this id shadows the pack's.
        case row
        /// The pack's entity with this id is deleted in the unified view.
        case tombstone
        /// The user store's links of this owner (possibly none) replace the pack's, in the
        /// link table `name`.
        case links
    }

    var kind: Kind
    /// The entity's name (`row`, `tombstone`) or the link table's (`links`).
    var name: String
    /// The entity's id, or the owner's.
    var id: StoredValue
    var pack: UUID
}
