@_spi(SchemaStore) import SchemaRuntime

/// How the first step of a list read in steps runs (``RelatedListRead``, ``FilteredListRead``),
/// as the dialect reads lists (``ListSteps``).
enum ListReadSteps {
    /// One statement holding both of its parts (a round trip to a server), each ending its
    /// rows with a marker saying which part answered (``SQLSelect/steps``).
    case united(SQLSelect)
    /// `long` returns a row where the list has more rows than are read at once; then `walk`
    /// runs, else the rest is read at once (statements in process).
    case separate(long: SQLSelect, walk: SQLSelect)

    /// The select whose plan `explain` shows: the one statement, or the walk.
    var explained: SQLSelect {
        switch self {
        case .united(let select): select
        case .separate(_, let walk): walk
        }
    }

    /// Whether the rows ``united(_:)`` returned are the answer: the few rows read at once
    /// (marker 0), or as many rows of the walk as the limit asks for.
    static func answers(_ rows: [[StoredValue]], limit: Int?) -> Bool {
        guard let marker = rows.first?.last else { return false }
        return marker == .integer(0) || rows.count == limit
    }
}
