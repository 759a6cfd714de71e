@_spi(SchemaStore) import SchemaRuntime

/// Two layers of a store over packs (a pack and the user store, or two packs) hold entities
/// with the same key in a unique index. Thrown while loading the layers; an install turns it
/// into ``PackError/uniqueCollision(pack:entity:index:packEntity:other:otherEntity:)``, and
/// opening into ``StoreError/unreadableRow(path:entity:reason:)``.
struct LayerCollision: Error {
    /// The index, the entity already loaded and the one loaded over it.
    let violation: UniqueConstraintViolation
    /// Where the entity loaded over the other comes from.
    let source: EntitySource
}
