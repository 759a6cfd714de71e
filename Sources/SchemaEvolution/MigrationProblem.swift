/// A change a migration cannot make on its own: the store refuses to open until the schema
/// or a registered migration closure resolves it.
public struct MigrationProblem: Hashable, Sendable, CustomStringConvertible {
    /// The entity (by its name in the code's schema), and the field or relation concerned.
    public var entity: String
    public var member: String?
    public var message: String
    /// How to resolve it.
    public var hint: String

    public init(entity: String, member: String?, message: String, hint: String) {
        self.entity = entity
        self.member = member
        self.message = message
        self.hint = hint
    }

    public var description: String {
        "\(entity)\(member.map { ".\($0)" } ?? ""): \(message) (\(hint))"
    }
}
