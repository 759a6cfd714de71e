import Foundation

// Declaring `IndexKeyConvertible` is enough for the types a schema keeps in Swift (`external`
// types): these give them an index value, so they can be indexed and compared in predicates
// (`\.status == .open`). `schemagen convert --from swiftletmodel` declares the conformance
// for the nested types it moves to the top level.

extension IndexKeyConvertible where Self: RawRepresentable & Encodable, RawValue: IndexKeyConvertible {
    /// A raw-value enum's raw value: indexes order it, and equality compares it.
    public var indexValue: IndexValue { rawValue.indexValue }
}

extension IndexKeyConvertible where Self: Encodable {
    /// The value's JSON encoding, keys sorted: equal values have equal keys (the encoding of
    /// a `Codable` value determines it), so hash and unique indexes and `==` predicates work.
    /// It is an order of text, not of the values: give a type that is sorted by, or held in an
    /// ordered index, an `indexValue` of its own.
    public var indexValue: IndexValue {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return .string(String(describing: self)) }
        return .string(String(decoding: data, as: UTF8.self))
    }
}
