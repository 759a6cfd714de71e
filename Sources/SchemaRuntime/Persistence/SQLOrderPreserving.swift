/// A stored type whose column compares and sorts in SQL exactly as the type does in Swift
/// (and as ``IndexValue`` orders it): integers that fit a 64-bit column, `Bool` (0 and 1),
/// and `String` (compared with the store's collation, which is Swift's string order).
///
/// A store reading on demand lets SQL answer comparisons and sorts on these fields; others
/// (`Double`, whose NaN and -0.0 are stored apart from the other numbers, `Date`, enums
/// ordered by declaration, JSON values) are checked in Swift.
public protocol SQLOrderPreserving: StorableValue {}

extension Int: SQLOrderPreserving {}
extension Int8: SQLOrderPreserving {}
extension Int16: SQLOrderPreserving {}
extension Int32: SQLOrderPreserving {}
extension Int64: SQLOrderPreserving {}
extension UInt8: SQLOrderPreserving {}
extension UInt16: SQLOrderPreserving {}
extension UInt32: SQLOrderPreserving {}
extension Bool: SQLOrderPreserving {}
extension String: SQLOrderPreserving {}
extension Optional: SQLOrderPreserving where Wrapped: SQLOrderPreserving {}
