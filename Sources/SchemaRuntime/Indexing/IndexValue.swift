import Foundation

/// A field value as indexes store and compare it.
///
/// Every value of one field maps to the same case (plus `.null` for nil), and the ordering
/// within a case is the Swift ordering of the original type, so an ordered index sorts
/// exactly as `sorted(by:)` on the field would. `nil` sorts before every value.
///
/// The order is total, so indexes, sorts and filters agree on every value: NaN (`Double`,
/// `Float` or `Decimal`) equals itself and sorts above every other number, as in SQL
/// databases, and `-0.0 == 0.0`. So `\.score > 0` matches a NaN score and `\.score == .nan`
/// finds it, whether an index answers the filter or a scan does.
public enum IndexValue: Hashable, Sendable, Comparable {
    case null
    case bool(Bool)
    case int(Int64)
    case uint(UInt64)
    case double(Double)
    case decimal(Decimal)
    case string(String)
    case data(Data)
    /// A schema enum case: ordered by declaration order.
    case ordinal(Int)

    private var rank: Int {
        switch self {
        case .null: 0
        case .bool: 1
        case .int: 2
        case .uint: 3
        case .double: 4
        case .decimal: 5
        case .string: 6
        case .data: 7
        case .ordinal: 8
        }
    }

    public static func == (lhs: IndexValue, rhs: IndexValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.int(a), .int(b)): a == b
        case let (.uint(a), .uint(b)): a == b
        case let (.double(a), .double(b)): a == b || (a.isNaN && b.isNaN)
        case let (.decimal(a), .decimal(b)): a.isNaN ? b.isNaN : (!b.isNaN && a == b)
        case let (.string(a), .string(b)): a == b
        case let (.data(a), .data(b)): a == b
        case let (.ordinal(a), .ordinal(b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(rank)
        switch self {
        case .null: break
        case .bool(let value): hasher.combine(value)
        case .int(let value): hasher.combine(value)
        case .uint(let value): hasher.combine(value)
        // Every NaN hashes alike; -0.0 and 0.0 hash alike because Double's hash treats them so.
        case .double(let value): if value.isNaN { hasher.combine(UInt8(0)) } else { hasher.combine(value) }
        case .decimal(let value): if value.isNaN { hasher.combine(UInt8(0)) } else { hasher.combine(value) }
        case .string(let value): hasher.combine(value)
        case .data(let value): hasher.combine(value)
        case .ordinal(let value): hasher.combine(value)
        }
    }

    public static func < (lhs: IndexValue, rhs: IndexValue) -> Bool {
        switch (lhs, rhs) {
        case let (.bool(a), .bool(b)): return !a && b
        case let (.int(a), .int(b)): return a < b
        case let (.uint(a), .uint(b)): return a < b
        // NaN is the greatest number: `a < NaN` for every other `a`.
        case let (.double(a), .double(b)): return a < b || (b.isNaN && !a.isNaN)
        case let (.decimal(a), .decimal(b)): return b.isNaN ? !a.isNaN : (!a.isNaN && a < b)
        case let (.string(a), .string(b)): return a < b
        case let (.data(a), .data(b)): return a.lexicographicallyPrecedes(b)
        case let (.ordinal(a), .ordinal(b)): return a < b
        default: return lhs.rank < rhs.rank
        }
    }
}

/// A type whose values can be index keys. Built-in field types conform; `schemagen` makes
/// schema enums conform; an `external` type used in an index conforms in your own code.
public protocol IndexKeyConvertible {
    var indexValue: IndexValue { get }
    /// True only for ``Descending``: a sort key that orders in reverse.
    static var isDescending: Bool { get }
}

extension String: IndexKeyConvertible { public var indexValue: IndexValue { .string(self) } }
extension Bool: IndexKeyConvertible { public var indexValue: IndexValue { .bool(self) } }
extension Int: IndexKeyConvertible { public var indexValue: IndexValue { .int(Int64(self)) } }
extension Int8: IndexKeyConvertible { public var indexValue: IndexValue { .int(Int64(self)) } }
extension Int16: IndexKeyConvertible { public var indexValue: IndexValue { .int(Int64(self)) } }
extension Int32: IndexKeyConvertible { public var indexValue: IndexValue { .int(Int64(self)) } }
extension Int64: IndexKeyConvertible { public var indexValue: IndexValue { .int(self) } }
extension UInt: IndexKeyConvertible { public var indexValue: IndexValue { .uint(UInt64(self)) } }
extension UInt8: IndexKeyConvertible { public var indexValue: IndexValue { .uint(UInt64(self)) } }
extension UInt16: IndexKeyConvertible { public var indexValue: IndexValue { .uint(UInt64(self)) } }
extension UInt32: IndexKeyConvertible { public var indexValue: IndexValue { .uint(UInt64(self)) } }
extension UInt64: IndexKeyConvertible { public var indexValue: IndexValue { .uint(self) } }
extension Double: IndexKeyConvertible { public var indexValue: IndexValue { .double(self) } }
extension Float: IndexKeyConvertible { public var indexValue: IndexValue { .double(Double(self)) } }
extension Decimal: IndexKeyConvertible { public var indexValue: IndexValue { .decimal(self) } }
extension Date: IndexKeyConvertible { public var indexValue: IndexValue { .double(timeIntervalSinceReferenceDate) } }
extension UUID: IndexKeyConvertible { public var indexValue: IndexValue { .string(uuidString) } }
extension URL: IndexKeyConvertible { public var indexValue: IndexValue { .string(absoluteString) } }
extension Data: IndexKeyConvertible { public var indexValue: IndexValue { .data(self) } }

extension Optional: IndexKeyConvertible where Wrapped: IndexKeyConvertible {
    public var indexValue: IndexValue { self?.indexValue ?? .null }
}

/// The key of one entity in an index: the indexed fields' values in index order.
public struct IndexKey: Hashable, Sendable {
    public let first: IndexValue
    /// Further fields of a compound index; empty (no allocation) for single-field indexes.
    public let rest: [IndexValue]

    public init(_ values: [IndexValue]) {
        first = values[0]
        rest = Array(values.dropFirst())
    }

    public init(_ value: IndexValue) {
        first = value
        rest = []
    }

    public var count: Int { 1 + rest.count }

    /// Whether any field is nil. Unique indexes ignore such keys: nil never collides.
    public var containsNull: Bool { first == .null || rest.contains(.null) }

    public subscript(_ index: Int) -> IndexValue { index == 0 ? first : rest[index - 1] }
}
