import Foundation

/// A field type that maps to one typed column (the generator stores other `Codable` values
/// as JSON text, see ``StoredField/json(_:_:)``).
///
/// | Swift | column |
/// | --- | --- |
/// | `Int`, `Int8`...`Int64`, `UInt8`...`UInt32`, `Bool` | INTEGER |
/// | `UInt`, `UInt64` | INTEGER, the bit pattern (values above `Int64.max` read back exactly but sort negative in SQL) |
/// | `Double`, `Float` | REAL (NaN and -0.0 as their bit pattern: they read back bit for bit) |
/// | `Date` | REAL: seconds since 2001-01-01 UTC (`timeIntervalSinceReferenceDate`), so every `Date` reads back bit for bit |
/// | `String`, `URL` (absolute string), `UUID`, `Decimal` (exact decimal text) | TEXT |
/// | `Data` | BLOB |
/// | raw-value enums | their raw value's column |
/// | `Optional` of any of these | the same column, NULL for nil |
public protocol StorableValue: Sendable {
    /// The column type.
    static var storedType: StoredType { get }
    /// Whether the column accepts NULL (only `Optional` does).
    static var isNullable: Bool { get }
    /// The value to store.
    var storedValue: StoredValue { get }
    /// Reads a stored value back; throws ``StoredValueError`` when it does not fit.
    init(storedValue: StoredValue) throws
}

extension StorableValue {
    public static var isNullable: Bool { false }
}

extension StorableValue where Self: FixedWidthInteger {
    public static var storedType: StoredType { .integer }
    public var storedValue: StoredValue { .integer(Int64(truncatingIfNeeded: self)) }
    public init(storedValue: StoredValue) throws {
        guard case .integer(let value) = storedValue else { throw StoredValueError(expectedType: "\(Self.self)", found: storedValue) }
        // 64-bit unsigned values are stored as their bit pattern; narrower types must fit.
        if Self.bitWidth == 64, !Self.isSigned {
            self.init(truncatingIfNeeded: value)
            return
        }
        guard let exact = Self(exactly: value) else { throw StoredValueError(expectedType: "\(Self.self)", found: storedValue) }
        self = exact
    }
}

extension Int: StorableValue {}
extension Int8: StorableValue {}
extension Int16: StorableValue {}
extension Int32: StorableValue {}
extension Int64: StorableValue {}
extension UInt: StorableValue {}
extension UInt8: StorableValue {}
extension UInt16: StorableValue {}
extension UInt32: StorableValue {}
extension UInt64: StorableValue {}

extension Bool: StorableValue {
    public static var storedType: StoredType { .integer }
    public var storedValue: StoredValue { .integer(self ? 1 : 0) }
    public init(storedValue: StoredValue) throws {
        guard case .integer(let value) = storedValue, value == 0 || value == 1 else {
            throw StoredValueError(expectedType: "Bool", found: storedValue)
        }
        self = value == 1
    }
}

extension Double: StorableValue {
    public static var storedType: StoredType { .real }
    /// A REAL, except NaN and -0.0, which SQL databases do not keep (SQLite turns NaN into
    /// NULL and -0.0 into 0): those are stored as their 8-byte bit pattern, so every Double
    /// reads back bit for bit.
    public var storedValue: StoredValue {
        guard isNaN || (self == 0 && sign == .minus) else { return .real(self) }
        return .blob(withUnsafeBytes(of: bitPattern.littleEndian) { Data($0) })
    }
    public init(storedValue: StoredValue) throws {
        switch storedValue {
        case .real(let value): self = value
        // SQLite stores a REAL without fractional part as an integer when it saves space.
        case .integer(let value): self = Double(value)
        case .blob(let bytes) where bytes.count == 8:
            self = Double(bitPattern: UInt64(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }))
        default: throw StoredValueError(expectedType: "Double", found: storedValue)
        }
    }
}

extension Float: StorableValue {
    public static var storedType: StoredType { .real }
    public var storedValue: StoredValue { Double(self).storedValue }
    public init(storedValue: StoredValue) throws {
        self = Float(try Double(storedValue: storedValue))
    }
}

extension String: StorableValue {
    public static var storedType: StoredType { .text }
    public var storedValue: StoredValue { .text(self) }
    public init(storedValue: StoredValue) throws {
        guard case .text(let value) = storedValue else { throw StoredValueError(expectedType: "String", found: storedValue) }
        self = value
    }
}

extension Data: StorableValue {
    public static var storedType: StoredType { .blob }
    public var storedValue: StoredValue { .blob(self) }
    public init(storedValue: StoredValue) throws {
        guard case .blob(let value) = storedValue else { throw StoredValueError(expectedType: "Data", found: storedValue) }
        self = value
    }
}

extension Date: StorableValue {
    public static var storedType: StoredType { .real }
    public var storedValue: StoredValue { .real(timeIntervalSinceReferenceDate) }
    public init(storedValue: StoredValue) throws {
        self.init(timeIntervalSinceReferenceDate: try Double(storedValue: storedValue))
    }
}

extension URL: StorableValue {
    public static var storedType: StoredType { .text }
    public var storedValue: StoredValue { .text(absoluteString) }
    public init(storedValue: StoredValue) throws {
        guard case .text(let text) = storedValue, let url = URL(string: text) else {
            throw StoredValueError(expectedType: "URL", found: storedValue)
        }
        self = url
    }
}

extension UUID: StorableValue {
    public static var storedType: StoredType { .text }
    public var storedValue: StoredValue { .text(uuidString) }
    public init(storedValue: StoredValue) throws {
        guard case .text(let text) = storedValue, let uuid = UUID(uuidString: text) else {
            throw StoredValueError(expectedType: "UUID", found: storedValue)
        }
        self = uuid
    }
}

extension Decimal: StorableValue {
    public static var storedType: StoredType { .text }
    /// Decimal text with a `.` separator whatever the locale: exact, unlike a REAL.
    public var storedValue: StoredValue { .text(description) }
    public init(storedValue: StoredValue) throws {
        guard case .text(let text) = storedValue, let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
            throw StoredValueError(expectedType: "Decimal", found: storedValue)
        }
        self = value
    }
}

extension Optional: StorableValue where Wrapped: StorableValue {
    public static var storedType: StoredType { Wrapped.storedType }
    public static var isNullable: Bool { true }
    public var storedValue: StoredValue { self?.storedValue ?? .null }
    public init(storedValue: StoredValue) throws {
        self = storedValue == .null ? nil : try Wrapped(storedValue: storedValue)
    }
}

/// Raw-value enums (the schema's `enum X: String` / `: Int`) are stored as their raw value.
/// The generator declares the conformance; these are its implementations.
extension StorableValue where Self: RawRepresentable, RawValue: StorableValue {
    public static var storedType: StoredType { RawValue.storedType }
    public var storedValue: StoredValue { rawValue.storedValue }
    public init(storedValue: StoredValue) throws {
        guard let value = Self(rawValue: try RawValue(storedValue: storedValue)) else {
            throw StoredValueError(expectedType: "\(Self.self)", found: storedValue)
        }
        self = value
    }
}
