import SchemaRuntime

/// One commit's change to one entity, as ``Store/changes(of:id:)`` reports it.
public enum EntityChange<Entity: EntityModelProtocol>: Sendable {
    /// The entity was stored for the first time (or again after a delete); relations `.none`.
    case inserted(Entity)
    /// The entity's fields or links changed; its stored fields now, relations `.none`.
    case updated(Entity)
    /// The entity was deleted.
    case deleted(Entity.ID)
}
