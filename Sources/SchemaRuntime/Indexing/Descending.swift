/// Sort and filter key paths may end in `.desc` for descending order: `\.age.desc`.
public struct Descending<Value: IndexKeyConvertible>: IndexKeyConvertible {
    public let value: Value
    public var indexValue: IndexValue { value.indexValue }
    public static var isDescending: Bool { true }
}

extension Descending: Equatable where Value: Equatable {}
extension Descending: Hashable where Value: Hashable {}
extension Descending: Sendable where Value: Sendable {}

/// Reversed: `a.desc < b.desc` exactly when `b < a`, so `\.age.desc` sorts descending in
/// your own code too (`users.sorted { $0.age.desc < $1.age.desc }`), as in SwiftletModel.
extension Descending: Comparable where Value: Comparable {
    public static func < (lhs: Descending, rhs: Descending) -> Bool { rhs.value < lhs.value }
}

extension IndexKeyConvertible {
    /// Sorts by this value in descending order: `sorted(by: \.age.desc)`.
    public var desc: Descending<Self> { Descending(value: self) }
    public static var isDescending: Bool { false }
}
