/// Called by generated code once per `external` declaration, on a line mapped to that
/// declaration in the schema (`#sourceLocation`): if the type does not exist, or lacks the
/// conformances generated code relies on, the compiler says so at the schema line that
/// declared it. Does nothing at run time.
@inlinable
public func requireExternalType<T: Codable & Sendable>(_ type: T.Type) {}

/// ``requireExternalType(_:)`` for an `external` type declared `Hashable`.
@inlinable
public func requireHashableExternalType<T: Codable & Sendable & Hashable>(_ type: T.Type) {}
