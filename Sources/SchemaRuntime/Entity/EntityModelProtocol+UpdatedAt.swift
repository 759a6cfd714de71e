import Foundation

/// Save times, for entities whose schema declares `metadata updatedAt` (SwiftletModel keeps
/// one for every entity; here it is opt-in, as it costs an index entry per save; the
/// converter adds the line to every entity it writes). Untracked entities have none (nil).
extension EntityModelProtocol {
    /// When this entity was last saved in `context`; nil if it is not stored or its type
    /// does not track save times.
    public func updatedAt(in context: Context) -> Date? {
        context.updatedAt(of: Self.self, id: id)
    }

    /// The latest save time of this entity and, `withNested`, of the entities loaded in its
    /// relations, at every depth (SwiftletModel's meaning): after
    /// `Chat.query(id, in: context).with(\.$messages)`, the chat's and its messages'; a chat
    /// resolved without relations gives its own time. Save times are read from `context` by
    /// id. O(entities loaded in the instance). ``updatedAt(in:reachingThroughStoredLinks:)``
    /// follows the stored links instead, whatever the instance holds.
    public func updatedAt(in context: Context, withNested: Bool) -> Date? {
        var latest = updatedAt(in: context)
        guard withNested else { return latest }
        var pending: [any EntityModelProtocol] = Self.relations.flatMap { $0.loadedEntities(self) }
        while let next = pending.popLast() {
            if let time = next.updatedAt(in: context) { latest = Swift.max(latest ?? time, time) }
            pending.append(contentsOf: next.loadedRelationEntities())
        }
        return latest
    }

    /// The entities loaded in this entity's relations, one level down.
    func loadedRelationEntities() -> [any EntityModelProtocol] {
        Self.relations.flatMap { $0.loadedEntities(self) }
    }

    /// The latest save time of this entity and of every stored entity it reaches through the
    /// stored links (each visited once, so cycles end): when anything in the graph it heads
    /// last changed, whatever this instance has loaded. O(entities and links reached).
    public func updatedAt(in context: Context, reachingThroughStoredLinks: Bool) -> Date? {
        guard reachingThroughStoredLinks else { return updatedAt(in: context) }
        // Reading on demand: the walk has no bound a query could state, so it reads everything.
        if let reader = context.reader {
            return updatedAt(in: reader.materializeEverything(in: context), reachingThroughStoredLinks: true)
        }
        guard let start = context.key(of: id, Self.self), context.hasRow(Self.self, start) else { return nil }
        var visited: Set<Pair> = [Pair(table: ObjectIdentifier(Self.self), key: start)]
        var pending = Array(visited)
        var latest: Double?
        while let next = pending.popLast() {
            guard let storage = context.storageIfPresent(next.table) else { continue }
            if let time = storage.saveTime(next.key) { latest = Swift.max(latest ?? time, time) }
            for (slot, target) in storage.linkTargets {
                guard let targets = context.storageIfPresent(target) else { continue }
                for key in context.targetKeys(next.table, slot, of: next.key) where targets.hasRow(key) {
                    let pair = Pair(table: target, key: key)
                    if visited.insert(pair).inserted { pending.append(pair) }
                }
            }
        }
        return latest.map { Date(timeIntervalSinceReferenceDate: $0) }
    }

    /// The latest save time of any stored entity of this type; nil when none has one.
    /// Read from the end of the updatedAt index: O(1) plus the entities saved at that instant.
    public static func updatedAt(in context: Context) -> Date? {
        if context.reader != nil {
            // Reading on demand: every entity of the type, read once (its rows keep no index).
            let holding = context.holdingEveryEntity(of: Self.self)
            let times = holding.liveKeys(Self.self).compactMap { holding.tableIfPresent(Self.self)?.savedAt($0) }
            return times.max().map { Date(timeIntervalSinceReferenceDate: $0) }
        }
        var latest: Double?
        context.tableIfPresent(Self.self)?.updatedAtIndex.visit(reversed: true) { key in
            latest = context.tableIfPresent(Self.self)?.savedAt(key)
            return false
        }
        return latest.map { Date(timeIntervalSinceReferenceDate: $0) }
    }
}

/// A key of some table, for walking a graph across entity types.
private struct Pair: Hashable {
    let table: ObjectIdentifier
    let key: Int32
}
