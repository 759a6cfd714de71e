/// The external type AllConstructs.schema declares with `external Owner: Hashable`.
public struct Owner: Codable, Sendable, Hashable {
    public var name: String
}
