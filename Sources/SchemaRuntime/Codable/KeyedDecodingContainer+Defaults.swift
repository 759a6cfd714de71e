/// Decoding helpers for generated `init(from:)`: one call per field instead of
/// `decodeIfPresent(...) ?? default`, whose autoclosure and optional unwrapping the compiler
/// would otherwise emit again for every field of every entity.
extension KeyedDecodingContainer {
    /// The value for `key`, or `defaultValue` when the key is missing or `null`.
    public func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key, default defaultValue: Value) throws -> Value {
        try decodeIfPresent(type, forKey: key) ?? defaultValue
    }

    /// A to-one relation; a missing key or `null` is `.none` (no data: stored links are kept).
    public func decodeRelation<Target, Directionality, Constraint>(
        _ type: ToOne<Target, Directionality, Constraint>.Type, forKey key: Key
    ) throws -> ToOne<Target, Directionality, Constraint> where Target: Decodable, Target.ID: Decodable {
        try decodeIfPresent(type, forKey: key) ?? .none
    }

    /// A to-many relation; a missing key or `null` is `.none` (no data: stored links are kept).
    public func decodeRelation<Target, Directionality>(
        _ type: ToMany<Target, Directionality>.Type, forKey key: Key
    ) throws -> ToMany<Target, Directionality> where Target: Decodable, Target.ID: Decodable {
        try decodeIfPresent(type, forKey: key) ?? .none
    }
}
