import Foundation

/// Editing the order of a to-many relation: to-many relations keep their link order (the
/// order they were saved or appended in); these operations change it in place, keep the
/// inverse side in step, and round-trip through Codable and stores like any saved list.
///
/// ```swift
/// try chat.insert([pinned.id], at: 0, into: \.$messages, in: &context)
/// try chat.move(\.$messages, from: 3, to: 0, in: &context)
/// let removed = try chat.remove(\.$messages, at: 1, in: &context)
/// ```
///
/// Each is one write: it throws ``LinkOrderError`` (or ``RequiredRelationViolation`` when an
/// unlinked entity must keep the inverse link) and then leaves the context exactly as it
/// was. Each costs O(n) for a list of n links, plus the inverse updates of what it links
/// or unlinks.
extension EntityModelProtocol {
    /// Links `ids` at the end of the list, in order; ids already linked stay where they are.
    public func append<Target, Directionality>(_ ids: [Target.ID], to relation: KeyPath<Self, ToMany<Target, Directionality>>,
                                               in context: inout Context) throws {
        try editLinks(relation, in: &context) { current, context in
            var list = current
            for id in ids {
                let key = context.intern(id, Target.self)
                if !list.contains(key) { list.append(key) }
            }
            return list
        }
    }

    /// Links `ids` before the entity now at `index` (`0...count`; `count` appends). Ids
    /// already linked move there; the position counts them where they are now, so the ids
    /// land just before whatever is at `index` (the end when that entity is itself moved).
    public func insert<Target, Directionality>(_ ids: [Target.ID], at index: Int, into relation: KeyPath<Self, ToMany<Target, Directionality>>,
                                               in context: inout Context) throws {
        try editLinks(relation, in: &context) { current, context in
            try Self.check(index, count: current.count, allowingEnd: true, relation)
            var inserted: [Int32] = []
            for id in ids {
                let key = context.intern(id, Target.self)
                if !inserted.contains(key) { inserted.append(key) }
            }
            return Self.placing(inserted, before: index, in: current)
        }
    }

    /// Moves the entity at `source` so that it ends at `destination` (both `0..<count`), as
    /// `Array`'s `remove(at:)` then `insert(_:at:)` would.
    public func move<Target, Directionality>(_ relation: KeyPath<Self, ToMany<Target, Directionality>>, from source: Int, to destination: Int,
                                             in context: inout Context) throws {
        try editLinks(relation, in: &context) { current, _ in
            try Self.check(source, count: current.count, relation)
            try Self.check(destination, count: current.count, relation)
            var list = current
            list.insert(list.remove(at: source), at: destination)
            return list
        }
    }

    /// Moves the entities at `offsets` before the one at `destination` (`0...count`), keeping
    /// their order: SwiftUI's `onMove(perform:)` gives exactly these arguments.
    public func move<Target, Directionality>(_ relation: KeyPath<Self, ToMany<Target, Directionality>>, fromOffsets offsets: IndexSet,
                                             toOffset destination: Int, in context: inout Context) throws {
        try editLinks(relation, in: &context) { current, _ in
            for offset in offsets { try Self.check(offset, count: current.count, relation) }
            try Self.check(destination, count: current.count, allowingEnd: true, relation)
            return Self.placing(offsets.map { current[$0] }, before: destination, in: current)
        }
    }

    /// Unlinks the entity at `index` (`0..<count`), keeping it stored, and returns its id.
    @discardableResult
    public func remove<Target, Directionality>(_ relation: KeyPath<Self, ToMany<Target, Directionality>>, at index: Int,
                                               in context: inout Context) throws -> Target.ID {
        var removed: Target.ID?
        try editLinks(relation, in: &context) { current, context in
            try Self.check(index, count: current.count, relation)
            removed = context.id(Target.self, current[index])
            var list = current
            list.remove(at: index)
            return list
        }
        return removed!
    }

    /// Puts the linked entities in the order of `ids`, which must list each linked id once.
    public func reorder<Target, Directionality>(_ relation: KeyPath<Self, ToMany<Target, Directionality>>, as ids: [Target.ID],
                                                in context: inout Context) throws {
        try editLinks(relation, in: &context) { current, context in
            let linked = current.map { context.id(Target.self, $0) }
            guard ids.count == linked.count, Set(ids) == Set(linked) else {
                let wanted = Set(ids), have = Set(linked)
                throw LinkOrderError.notAPermutation(relationName: Self.relation(for: relation).qualifiedName,
                                                     missing: linked.filter { !wanted.contains($0) }.map { "\($0)" },
                                                     extra: ids.filter { !have.contains($0) }.map { "\($0)" })
            }
            return ids.map { context.key(of: $0, Target.self)! }
        }
    }

    // MARK: Running

    /// Replaces the list of `relation` with what `edit` makes of the current one, in one
    /// transaction, updating the inverses of what it links and unlinks.
    private func editLinks<Target, Directionality>(_ relation: KeyPath<Self, ToMany<Target, Directionality>>, in context: inout Context,
                                                   _ edit: ([Int32], inout Context) throws -> [Int32]) throws {
        let descriptor = Self.relation(for: relation)
        try context.transaction { context in
            context.faultEntity(id: id, Self.self)
            guard let key = context.key(of: id, Self.self), context.hasRow(Self.self, key) else {
                throw LinkOrderError.notStored(entityName: Self.entityName, id: "\(id)")
            }
            let table = ObjectIdentifier(Self.self)
            context.faultSlot(table, descriptor.slot, key)
            let current = context.targetKeys(table, descriptor.slot, of: key)
            let list = try edit(current, &context)
            context.setToMany(table, descriptor.slot.column, key, to: list, appending: false,
                              descriptor.targetTable, inverse: descriptor.inverse)
        }
    }

    /// Throws unless `index` is a position of a list of `count` (or, `allowingEnd`, its end).
    private static func check(_ index: Int, count: Int, allowingEnd: Bool = false, _ relation: AnyKeyPath) throws {
        guard index < 0 || index > count || (index == count && !allowingEnd) else { return }
        throw LinkOrderError.indexOutOfRange(relationName: Self.relation(for: relation).qualifiedName, index: index, count: count)
    }

    /// `current` without `keys`, then `keys` inserted where the entity at `index` of
    /// `current` was (after the ones before it that stay).
    private static func placing(_ keys: [Int32], before index: Int, in current: [Int32]) -> [Int32] {
        let moving = Set(keys)
        var list = current.filter { !moving.contains($0) }
        let position = current[..<index].filter { !moving.contains($0) }.count
        list.insert(contentsOf: keys, at: position)
        return list
    }
}

extension AnyRelation {
    /// `Chat.messages`, for messages.
    var qualifiedName: String { "\(Source.entityName).\(name)" }
}
