import SchemaRuntime

/// What the user changed of one pack's entities of one type: the unified view differs from
/// the pack there (``Store/edits(of:inPack:)``).
public struct PackEdits<Entity: EntityModelProtocol>: Sendable {
    /// Pack entities whose fields or links differ from the pack's (user overrides).
    public let edited: [Entity.ID]
    /// Pack entities the user deleted (hidden by tombstones).
    public let deleted: [Entity.ID]

    public var isEmpty: Bool { edited.isEmpty && deleted.isEmpty }
}
