/// A query that cannot run, such as a regular expression that does not compile.
public struct InvalidQuery: Error, CustomStringConvertible, Sendable {
    public let message: String
    public var description: String { message }
}
