import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// Which entities of a graph go into an exported pack (``Pack/export(at:manifest:schema:from:selecting:)``):
/// the entities listed, with the links among them; links to entities left out are dropped.
///
/// ```swift
/// let selection = PackSelection()
///     .including(Chat.self, ids: ["c1"])
///     .including(Message.self, ids: messageIDs)
///     .including(User.self, ids: authorIDs)
/// ```
public struct PackSelection: Sendable {
    fileprivate struct Part: Sendable {
        /// Saves the selected rows, relations `.none`.
        let rows: @Sendable (Context, inout Context) throws -> Void
        /// Saves the selected entities again with their links to selected entities.
        let links: @Sendable (Context, inout Context) throws -> Void
    }

    fileprivate var parts: [Part] = []

    public init() {}

    /// The selection with the entities of `type` with `ids` added (ids not stored are skipped).
    public func including<Entity: EntityModelProtocol>(_ type: Entity.Type, ids: [Entity.ID]) -> PackSelection {
        var copy = self
        copy.parts.append(Part(rows: { source, target in
            for id in ids {
                guard var entity = source.find(Entity.self, id: id) else { continue }
                entity.normalize()
                try entity.save(to: &target, options: .replace)
            }
        }, links: { source, target in
            for entity in Entity.query(ids, in: source).with(.ids).resolve() {
                try target.keepingStoredTargets(entity).save(to: &target, options: .replace)
            }
        }))
        return copy
    }

    /// The selected part of `source`: rows first, so that links find every selected target.
    func extract(from source: Context, into target: inout Context) throws {
        for part in parts { try part.rows(source, &target) }
        for part in parts { try part.links(source, &target) }
    }
}

extension Pack {
    /// Writes a new pack at `url` holding the entities `selection` picks from `source` (a
    /// user store's `context`, for example) and the links among them.
    @discardableResult
    public static func export(at url: URL, manifest: PackManifest, schema: any PersistentSchema.Type,
                              from source: Context, selecting selection: PackSelection) throws -> Pack {
        try create(at: url, manifest: manifest, schema: schema) { context in
            try selection.extract(from: source, into: &context)
        }
    }
}
