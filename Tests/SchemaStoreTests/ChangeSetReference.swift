import ChatModels
import Foundation
@_spi(SchemaStore) import SchemaRuntime
import SchemaStore

/// The changes between two graphs, computed the slow, obvious way: every entity of every
/// type compared field by field (save times included) and link slot by link slot. The
/// reference that ``StoreChanges`` must equal.
struct ChangeSetReference: Equatable, CustomStringConvertible {
    /// Per entity name: sorted descriptions of each change.
    var entities: [String: [String]] = [:]

    init(before: Context, after: Context) throws {
        try add(User.self, before, after)
        try add(Chat.self, before, after)
        try add(Message.self, before, after)
        try add(Attachment.self, before, after)
    }

    /// The same description of what a store reported.
    init(_ changes: StoreChanges?) {
        guard let changes else { return }
        add(User.self, changes)
        add(Chat.self, changes)
        add(Message.self, changes)
        add(Attachment.self, changes)
    }

    var description: String {
        entities.keys.sorted().map { "\($0): \(entities[$0]!.joined(separator: ", "))" }.joined(separator: "\n")
    }

    private mutating func add<Entity: EntityModelProtocol & Encodable>(_ type: Entity.Type, _ changes: StoreChanges) where Entity.ID == String {
        guard let found = changes.changes(type) else { return }
        var lines = found.inserted.map { "+\($0)" } + found.updated.map { "~\($0)" } + found.deleted.map { "-\($0)" }
        lines += found.relinked.map { "links \($0.key): \($0.value.joined(separator: " "))" }
        entities[Entity.entityName] = lines.sorted()
    }

    private mutating func add<Entity: EntityModelProtocol & Encodable>(_ type: Entity.Type, _ before: Context, _ after: Context) throws where Entity.ID == String {
        let ids = Set(Entity.query(in: before).resolve().map(\.id)).union(Entity.query(in: after).resolve().map(\.id))
        var lines: [String] = []
        for id in ids {
            let old = try Self.fields(of: id, Entity.self, in: before), new = try Self.fields(of: id, Entity.self, in: after)
            switch (old, new) {
            case (nil, .some): lines.append("+\(id)")
            case (.some, nil): lines.append("-\(id)")
            case let (.some(old), .some(new)) where old != new: lines.append("~\(id)")
            default: break
            }
            guard new != nil else { continue }
            let changed = Entity.relations.filter { Self.links($0, of: id, in: before) != Self.links($0, of: id, in: after) }
            if !changed.isEmpty { lines.append("links \(id): \(changed.map(\.name).joined(separator: " "))") }
        }
        if !lines.isEmpty { entities[Entity.entityName] = lines.sorted() }
    }

    private static func fields<Entity: EntityModelProtocol & Encodable>(of id: Entity.ID, _ type: Entity.Type, in context: Context) throws -> String? {
        guard var entity = context.find(Entity.self, id: id) else { return nil }
        entity.normalize()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let savedAt = context.updatedAt(of: Entity.self, id: id).map { "\($0.timeIntervalSinceReferenceDate)" } ?? "-"
        return String(decoding: try encoder.encode(entity), as: UTF8.self) + savedAt
    }

    /// The stored links of a relation slot, as raw keys (stable within a store's life).
    private static func links<Entity: EntityModelProtocol>(_ relation: AnyRelation<Entity>, of id: Entity.ID, in context: Context) -> [Int32] {
        guard let key = context.internedKey(of: id, Entity.self) else { return [] }
        let table = ObjectIdentifier(Entity.self)
        switch relation.slot.cardinality {
        case .toOne:
            let target = context.linkedKey(table, relation.slot, of: key)
            return target >= 0 ? [target] : []
        case .toMany:
            return Array(context.linkedKeys(table, relation.slot, of: key))
        }
    }
}
