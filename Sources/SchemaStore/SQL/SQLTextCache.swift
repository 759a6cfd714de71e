import Foundation

/// SQL texts of selects already rendered, by shape (``SQLSelect/hashShape(into:)``): a
/// select of a shape seen before only has its values bound (``SQLRenderer``).
///
/// A store reading on demand renders the same few shapes over and over with other values
/// (a write's checks that what it creates is new, the lookups of links, a screen's query),
/// and writing the text anew cost about 13,000 instructions a select, a twentieth of a single
/// write on demand (callgrind, `schemastore-bench postgres-profile`). Shared by every
/// store of one dialect in the process; bounded, since queries' shapes are the app's to
/// choose: when full, it starts again empty.
final class SQLTextCache: @unchecked Sendable {
    /// A select and the number of its first placeholder (PostgreSQL numbers them), equal to
    /// another when they render to the same text.
    struct Key: Hashable {
        let select: SQLSelect
        let firstPlaceholder: Int

        func hash(into hasher: inout Hasher) {
            hasher.combine(firstPlaceholder)
            select.hashShape(into: &hasher)
        }

        static func == (lhs: Key, rhs: Key) -> Bool {
            lhs.firstPlaceholder == rhs.firstPlaceholder && lhs.select.hasSameShape(as: rhs.select)
        }
    }

    /// How many texts it keeps at most.
    let capacity: Int
    private let lock = NSLock()
    private var texts: [Key: String] = [:]

    init(capacity: Int = 1024) { self.capacity = capacity }

    subscript(key: Key) -> String? {
        get { lock.withLock { texts[key] } }
        set {
            lock.withLock {
                if texts.count >= capacity { texts.removeAll(keepingCapacity: true) }
                texts[key] = newValue
            }
        }
    }

    /// The number of texts kept.
    var count: Int { lock.withLock { texts.count } }
}
