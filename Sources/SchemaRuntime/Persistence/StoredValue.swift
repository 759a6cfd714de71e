import Foundation

/// One column value as a store keeps it: the storage classes SQLite has, and that most
/// databases map directly.
public enum StoredValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

/// A stored value that cannot be read back as the field's type: the file was written by
/// other code, edited by hand, or is damaged.
public struct StoredValueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The Swift type the value was read as.
    public var expectedType: String
    /// The value found, as text.
    public var found: String

    public init(expectedType: String, found: StoredValue) {
        self.expectedType = expectedType
        self.found = switch found {
        case .null: "NULL"
        case .integer(let value): "INTEGER \(value)"
        case .real(let value): "REAL \(value)"
        case .text(let value): "TEXT \(value.debugDescription)"
        case .blob(let value): "BLOB of \(value.count) bytes"
        }
    }

    public var description: String { "cannot read \(found) as \(expectedType)" }
}
