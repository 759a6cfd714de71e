/// Sort and filter key paths may end in `.desc` for descending order: `\.age.desc`.
public struct Descending<Value: IndexKeyConvertible>: IndexKeyConvertible {
    public let value: Value
    public var indexValue: IndexValue { value.indexValue }
    public static var isDescending: Bool { true }
}

extension IndexKeyConvertible {
    /// Sorts by this value in descending order: `sorted(by: \.age.desc)`.
    public var desc: Descending<Self> { Descending(value: self) }
    public static var isDescending: Bool { false }
}
