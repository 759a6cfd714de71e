import Foundation

/// One empty table per entity type and kind of context, which new tables copy.
///
/// A write on demand starts from an empty context and makes each table it touches anew:
/// making one (its index storages, the empty columns, the id map's shard) cost about four
/// times copying an empty one, whose storage the copy shares until its first write
/// (the same copy-on-write ``Context/storage(_:)`` relies on). About a twentieth of a
/// single write on demand (callgrind, `schemastore-bench postgres-profile`).
@usableFromInline
enum EmptyTables {
    /// What an empty table is made for: its type and ``EntityTable/init(indexed:uniqueOnly:fewRows:)``'s flags.
    private struct Kind: Hashable {
        let type: ObjectIdentifier
        let indexed: Bool
        let uniqueOnly: Bool
        let fewRows: Bool
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var prototypes: [Kind: TableStorage] = [:]

    /// A new empty table of `Entity`, as `EntityTable(indexed:uniqueOnly:fewRows:)` makes
    /// one. O(1) after the first of its kind (a dictionary lookup under a lock, and a copy
    /// of an empty table).
    @usableFromInline
    static func table<Entity: EntityModelProtocol>(_ type: Entity.Type, indexed: Bool, uniqueOnly: Bool, fewRows: Bool) -> EntityTable<Entity> {
        let kind = Kind(type: ObjectIdentifier(type), indexed: indexed, uniqueOnly: uniqueOnly, fewRows: fewRows)
        let prototype: TableStorage
        if let known = lock.withLock({ prototypes[kind] }) {
            prototype = known
        } else {
            // Made outside the lock: two threads racing here make equal empty tables.
            prototype = EntityTable<Entity>(indexed: indexed, uniqueOnly: uniqueOnly, fewRows: fewRows)
            lock.withLock { prototypes[kind] = prototype }
        }
        return unsafeDowncast(prototype.copy(), to: EntityTable<Entity>.self)
    }
}
