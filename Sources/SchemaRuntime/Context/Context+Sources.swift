import Foundation

/// The source of each entity (``EntitySource``), kept per key: a small number into the
/// context's list of packs, 0 for the user's own entities. Keys never marked are user keys,
/// so a context without packs pays one empty array per table.
extension Context {
    /// Where the stored entity with `id` comes from; nil if no such entity is stored. O(1).
    public func source<Entity: EntityModelProtocol>(of type: Entity.Type, id: Entity.ID) -> EntitySource? {
        if let context = holding(id, type) { return context.source(of: type, id: id) }
        guard let key = key(of: id, type), hasRow(type, key) else { return nil }
        return source(ofKey: key, in: ObjectIdentifier(type))
    }

    /// The source of `key` in `table`, stored or not.
    func source(ofKey key: Int32, in table: ObjectIdentifier) -> EntitySource {
        let number = sourceNumber(ofKey: key, in: table)
        return number == 0 ? .user : .pack(packSources[Int(number) - 1])
    }

    @inlinable
    func sourceNumber(ofKey key: Int32, in table: ObjectIdentifier) -> UInt16 {
        guard let origins = tables[table]?.origins, Int(key) < origins.count else { return 0 }
        return origins[Int(key)]
    }

    /// The numbers standing for `sources` in this context; sources it does not hold are left out.
    func sourceNumbers(_ sources: Set<EntitySource>) -> Set<UInt16> {
        var numbers = Set<UInt16>()
        for source in sources {
            switch source {
            case .user: numbers.insert(0)
            case .pack(let id): if let index = packSources.firstIndex(of: id) { numbers.insert(UInt16(index + 1)) }
            }
        }
        return numbers
    }
}

@_spi(SchemaStore)
extension Context {
    /// Marks `key` of `Entity` as coming from `source` (registering a new pack). Not journaled:
    /// a store marks keys while loading, and after a write commits.
    public mutating func setSource<Entity: EntityModelProtocol>(_ source: EntitySource, of type: Entity.Type, key: Int32) {
        let number: UInt16
        switch source {
        case .user:
            number = 0
        case .pack(let id):
            if let index = packSources.firstIndex(of: id) {
                number = UInt16(index + 1)
            } else {
                precondition(packSources.count < Int(UInt16.max), "too many packs in one context")
                packSources.append(id)
                number = UInt16(packSources.count)
            }
        }
        guard number != sourceNumber(ofKey: key, in: ObjectIdentifier(type)) else { return }
        let table = table(type)
        if Int(key) >= table.origins.count { table.origins.append(contentsOf: repeatElement(0, count: Int(key) + 1 - table.origins.count)) }
        table.origins[Int(key)] = number
    }

    /// The source of `key`, stored or not.
    public func source<Entity: EntityModelProtocol>(of type: Entity.Type, key: Int32) -> EntitySource {
        source(ofKey: key, in: ObjectIdentifier(type))
    }
}
