@_spi(SchemaStore) import SchemaRuntime

extension Context {
    /// The keys a link slot of `key` holds, in order, whatever its cardinality: none, one
    /// (to-one) or the list (to-many).
    func targetKeys(_ table: ObjectIdentifier, _ slot: LinkSlot, of key: Int32) -> [Int32] {
        switch slot.cardinality {
        case .toMany: return Array(linkedKeys(table, slot, of: key))
        case .toOne:
            let target = linkedKey(table, slot, of: key)
            return target >= 0 ? [target] : []
        }
    }
}
