/// How a query ran: which indexes it used and what it did after. `query.explain()`.
public struct QueryPlan: CustomStringConvertible, Sendable, Equatable {
    /// The steps, in order, e.g. `["index range User.ageIndex", "filter", "sort by index User.ageIndex"]`.
    public internal(set) var steps: [String] = []
    /// Whether the index answer was exact, so candidates need no re-check.
    var isExact = false
    /// Whether any index was used.
    public var usesIndex: Bool { steps.contains { $0.contains("index") } }
    public var description: String { steps.joined(separator: " -> ") }

    public static func == (lhs: QueryPlan, rhs: QueryPlan) -> Bool { lhs.steps == rhs.steps }
}
