/// What opening a store written with one schema (`old`) takes to follow another (`new`):
/// the steps, readable before anything runs (``description``), and the problems that block
/// it. Computed from the two shapes alone by ``MigrationPlanner``; a store applies it in one
/// transaction.
public struct MigrationPlan: Sendable, CustomStringConvertible {
    /// How a column of a migrated table gets its values.
    public enum ColumnSource: Hashable, Sendable {
        /// The old field's values (renamed, or made optional, or unchanged).
        case copy(from: String)
        /// The old field's values, nil replaced by the field's default (an optional field that
        /// became required).
        case copyReplacingNil(from: String)
        /// The field's default, in every row.
        case defaultValue
        /// NULL, in every row.
        case null
        /// The field's migration closure, given each old row.
        case migration
    }

    /// A field of an entity, by their names in the new schema.
    public struct FieldPath: Hashable, Sendable, CustomStringConvertible {
        public var entity: String
        public var field: String

        public init(_ entity: String, _ field: String) {
            self.entity = entity
            self.field = field
        }

        public var description: String { "\(entity).\(field)" }
    }

    public let old: SchemaShape
    public let new: SchemaShape
    public internal(set) var steps: [MigrationStep] = []
    public internal(set) var problems: [MigrationProblem] = []
    /// For each entity of `new` that existed in `old`: its old name.
    public internal(set) var entitySources: [String: String] = [:]
    /// For each entity of `new` that existed in `old`: where each of its columns comes from.
    public internal(set) var columnSources: [String: [String: ColumnSource]] = [:]
    /// For each relation of `new` that existed in `old`: its old path.
    public internal(set) var relationSources: [TableLayout.RelationPath: TableLayout.RelationPath] = [:]

    init(old: SchemaShape, new: SchemaShape) {
        self.old = old
        self.new = new
    }

    /// Whether the two shapes store the same data the same way.
    public var isEmpty: Bool { steps.isEmpty }

    /// Whether the plan deletes stored data (each such step says what).
    public var deletesData: Bool { steps.contains(where: \.deletesData) }

    /// The steps that delete data.
    public var deletions: [MigrationStep] { steps.filter(\.deletesData) }

    /// One line per step, then one per problem.
    public var description: String {
        guard !steps.isEmpty || !problems.isEmpty else { return "no changes" }
        var lines = steps.map(\.description)
        if !problems.isEmpty {
            lines.append("cannot migrate without help:")
            lines += problems.map { "  error: \($0)" }
        }
        return lines.joined(separator: "\n")
    }
}
