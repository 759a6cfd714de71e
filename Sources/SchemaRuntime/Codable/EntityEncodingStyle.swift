import Foundation

/// The JSON shape entities are written in. Decoding reads both shapes whatever the style.
///
/// | | `.schemaGen` (default) | `.swiftletModel` |
/// |---|---|---|
/// | a field that is nil | `null` | left out |
/// | keyed relation to an entity | `{"entity": e}` | `{"object": e}` |
/// | keyed relation to entities | `{"entities": [e]}` | `{"objects": [e]}` |
/// | `.null` (keyed) | `{"null": true}` | `{"id": null}` |
/// | explicit fragment(s) | `{"fragment": e}`, `{"fragments": [e]}` | `{"object": e}`, `{"objects": [e]}` |
/// | explicit slice of ids | `{"ids": [x], "appending": true}` | `{"slice_ids": [x]}` |
/// | explicit slice of entities | `{"entities": [e], "appending": true}` | `{"slice": [e]}` |
///
/// `.swiftletModel` writes what SwiftletModel's synthesized `Codable` and relation strategies
/// write, byte for byte with the same `JSONEncoder` settings (`JSONEncoder.prettyPrinting`),
/// for apps whose server or cache reads that JSON. `.schemaGen` round-trips more exactly: a
/// nil field written as `null` reads back as nil even where the schema gives the field
/// another default, an embedded entity whose other fields are nil is never mistaken for an
/// id reference, and `.fragment`/`.null` survive the `explicitKeyedContainer` strategy.
public enum EntityEncodingStyle: Sendable, Hashable {
    case schemaGen
    case swiftletModel

    /// The `userInfo` key under which encoders carry the style.
    public static let userInfoKey = CodingUserInfoKey(rawValue: "SchemaRuntime.EntityEncodingStyle")!
}

extension Encoder {
    /// The entity encoding style set in `userInfo`, `.schemaGen` when none is.
    public var entityEncodingStyle: EntityEncodingStyle {
        (userInfo[EntityEncodingStyle.userInfoKey] as? EntityEncodingStyle) ?? .schemaGen
    }

    /// Whether nil fields are left out rather than written as `null` (generated `encode(to:)`).
    public var omitsNilFields: Bool { entityEncodingStyle == .swiftletModel }
}

extension JSONEncoder {
    /// The entity encoding style, stored in `userInfo`: `.swiftletModel` writes SwiftletModel's
    /// JSON shapes.
    public var entityEncodingStyle: EntityEncodingStyle {
        get { (userInfo[EntityEncodingStyle.userInfoKey] as? EntityEncodingStyle) ?? .schemaGen }
        set { userInfo[EntityEncodingStyle.userInfoKey] = newValue }
    }
}

extension KeyedEncodingContainer {
    /// An optional field: `null` when nil, or no key at all when `omittingNil`
    /// (``Encoder/omitsNilFields``).
    public mutating func encode<Value: Encodable>(_ value: Value?, forKey key: Key, omittingNil: Bool) throws {
        if omittingNil {
            try encodeIfPresent(value, forKey: key)
        } else {
            try encode(value, forKey: key)
        }
    }
}
