/// Thrown by the ordered to-many operations (``EntityModelProtocol/insert(_:at:into:in:)``,
/// `move`, `remove(_:at:in:)`, `reorder`) when the call cannot apply; the context is then
/// exactly as it was.
public enum LinkOrderError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The entity whose list was to change is not stored.
    case notStored(entityName: String, id: String)
    /// A position outside the list: valid positions are `0..<count` (`0...count` where
    /// something is inserted).
    case indexOutOfRange(relationName: String, index: Int, count: Int)
    /// `reorder` was given ids that are not exactly the linked ones.
    case notAPermutation(relationName: String, missing: [String], extra: [String])

    public var description: String {
        switch self {
        case .notStored(let entity, let id):
            "\(entity) '\(id)' is not stored: save it before editing its relations"
        case .indexOutOfRange(let relation, let index, let count):
            "position \(index) is outside \(relation), which links \(count) \(count == 1 ? "entity" : "entities")"
        case .notAPermutation(let relation, let missing, let extra):
            "reorder of \(relation) must list every linked id once"
                + (missing.isEmpty ? "" : "; missing: \(missing.joined(separator: ", "))")
                + (extra.isEmpty ? "" : "; not linked: \(extra.joined(separator: ", "))")
        }
    }
}
