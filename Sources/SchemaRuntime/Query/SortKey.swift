/// One key of a sort: a field, ascending, or descending when the key path ends in `.desc`.
struct SortKey<Entity> {
    let keyPath: AnyKeyPath
    let descending: Bool
    let value: (Entity) -> IndexValue

    init<Value: IndexKeyConvertible>(_ keyPath: KeyPath<Entity, Value>) {
        self.keyPath = keyPath
        self.descending = Value.isDescending
        self.value = { $0[keyPath: keyPath].indexValue }
    }
}
