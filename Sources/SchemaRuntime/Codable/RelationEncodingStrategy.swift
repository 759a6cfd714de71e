import Foundation

/// How relation properties are written when an entity is encoded.
///
/// | state | `.plain` | `.keyedContainer` | `.explicitKeyedContainer` |
/// |---|---|---|---|
/// | `.none` | `null` | `null` | `null` |
/// | `.null` | `null` | `{"null": true}` | `{"null": true}` |
/// | `.id(x)` | `{"id": x}` | `{"id": x}` | `{"id": x}` |
/// | `.relation(e)` | `e` | `{"entity": e}` | `{"entity": e}` |
/// | `.fragment(e)` | `e` | `{"entity": e}` | `{"fragment": e}` |
/// | `.ids([x])` | `[{"id": x}]` | `{"ids": [x]}` | `{"ids": [x]}` |
/// | `.relation([e])` | `[e]` | `{"entities": [e]}` | `{"entities": [e]}` |
/// | `.fragment([e])` | `[e]` | `{"entities": [e]}` | `{"fragments": [e]}` |
/// | `.appending(...)` | as above | as above | adds `"appending": true` |
///
/// `.plain` is the shape an API would send and cannot tell `.null` from `.none` (both decode
/// as `.none`, which is the safe reading). `.explicitKeyedContainer` round-trips every state.
/// Decoding accepts all three shapes whatever the strategy.
public enum RelationEncodingStrategy: Sendable, Hashable {
    case plain
    case keyedContainer
    case explicitKeyedContainer

    /// The strategy used when none is set.
    public static let `default`: RelationEncodingStrategy = .plain

    /// The `userInfo` key under which encoders carry the strategy.
    public static let userInfoKey = CodingUserInfoKey(rawValue: "SchemaRuntime.RelationEncodingStrategy")!
}

extension Encoder {
    /// The relation encoding strategy set in `userInfo`, or ``RelationEncodingStrategy/default``.
    public var relationEncodingStrategy: RelationEncodingStrategy {
        (userInfo[RelationEncodingStrategy.userInfoKey] as? RelationEncodingStrategy) ?? .default
    }
}

extension JSONEncoder {
    /// The relation encoding strategy, stored in `userInfo`.
    public var relationEncodingStrategy: RelationEncodingStrategy {
        get { (userInfo[RelationEncodingStrategy.userInfoKey] as? RelationEncodingStrategy) ?? .default }
        set { userInfo[RelationEncodingStrategy.userInfoKey] = newValue }
    }

    /// An encoder with pretty-printed, key-sorted output, slashes not escaped
    /// (`"https://a/b"`, as SwiftletModel's writes them).
    public static var prettyPrinting: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

/// SwiftletModel's decoding setting. Decoding here accepts every relation shape (plain,
/// keyed, explicit, and SwiftletModel's `object`/`objects` keys) whatever it says, so it is
/// kept only so migrated code compiles; it changes nothing.
public typealias RelationDecodingStrategy = RelationEncodingStrategy

extension JSONDecoder {
    /// Accepted for SwiftletModel compatibility and ignored: every shape decodes anyway.
    public var relationDecodingStrategy: RelationDecodingStrategy {
        get { (userInfo[RelationEncodingStrategy.userInfoKey] as? RelationEncodingStrategy) ?? .default }
        set { userInfo[RelationEncodingStrategy.userInfoKey] = newValue }
    }
}

extension Encodable {
    /// The value as JSON text, or nil if it cannot be encoded.
    public func prettyDescription(with encoder: JSONEncoder = .prettyPrinting) -> String? {
        guard let data = try? encoder.encode(self) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A coding key made from any string, for the relation containers.
struct RelationCodingKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    static let id = RelationCodingKey("id")
    static let ids = RelationCodingKey("ids")
    static let entity = RelationCodingKey("entity")
    static let entities = RelationCodingKey("entities")
    static let fragment = RelationCodingKey("fragment")
    static let fragments = RelationCodingKey("fragments")
    static let null = RelationCodingKey("null")
    /// SwiftletModel's keyed shapes: `{"object": e}` and `{"objects": [e]}` (decoded as
    /// `entity` and `entities`).
    static let object = RelationCodingKey("object")
    static let objects = RelationCodingKey("objects")
    static let appending = RelationCodingKey("appending")
    /// SwiftletModel's explicit slices (`slice_ids`, `slice`; `chunk_ids`, `chunk` in its
    /// earlier versions): an appending list.
    static let sliceIDs = RelationCodingKey("slice_ids")
    static let slice = RelationCodingKey("slice")
    static let chunkIDs = RelationCodingKey("chunk_ids")
    static let chunk = RelationCodingKey("chunk")
}
