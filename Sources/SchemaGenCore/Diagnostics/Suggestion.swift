/// "Did you mean" suggestions for misspelled names.
enum Suggestion {
    /// Names longer than this get no suggestion: a typo of a real name is short, and the
    /// distance computation must stay cheap on hostile input.
    static let maximumLength = 64

    /// The candidate closest to `name` by edit distance, if it is close enough to be a typo
    /// (at most a third of the name's length). Costs O(k * n) per candidate, where k is
    /// that limit and n the name's length, both bounded by ``maximumLength``.
    static func closest(to name: String, in candidates: some Sequence<String>) -> String? {
        let typed = Array(name.lowercased().unicodeScalars)
        guard !typed.isEmpty, typed.count <= maximumLength else { return nil }
        let limit = max(1, typed.count / 3)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let other = Array(candidate.lowercased().unicodeScalars)
            guard other.count <= maximumLength,
                  let distance = editDistance(typed, other, limit: best?.distance ?? limit) else { continue }
            // Ties go to the alphabetically first name, so the hint does not depend on hashing order.
            if let current = best, distance == current.distance, current.name <= candidate { continue }
            best = (candidate, distance)
        }
        return best?.name
    }

    /// A hint sentence for `closest`, or nil.
    static func didYouMean(_ name: String, in candidates: some Sequence<String>) -> String? {
        closest(to: name, in: candidates).map { "did you mean '\($0)'?" }
    }

    /// Levenshtein distance, or nil once it must exceed `limit`. Only the diagonal band of
    /// width 2 * limit + 1 is computed, so the cost is O(limit * a.count).
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int? {
        if abs(a.count - b.count) > limit { return nil }
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        let unreachable = limit + 1
        var previous = (0...b.count).map { $0 <= limit ? $0 : unreachable }
        var current = [Int](repeating: unreachable, count: b.count + 1)
        for i in 1...a.count {
            let low = max(1, i - limit), high = min(b.count, i + limit)
            current[0] = i <= limit ? i : unreachable
            if low > 1 { current[low - 1] = unreachable }
            var rowMinimum = current[0]
            if low <= high {
                for j in low...high {
                    let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                    let value = min(substitution, previous[j] + 1, current[j - 1] + 1, unreachable)
                    current[j] = value
                    rowMinimum = min(rowMinimum, value)
                }
            }
            if high < b.count { current[high + 1] = unreachable }
            if rowMinimum > limit { return nil }
            swap(&previous, &current)
        }
        return previous[b.count] <= limit ? previous[b.count] : nil
    }

    /// Plain Levenshtein distance between two strings (no limit), for tests and small inputs.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.unicodeScalars), b = Array(b.unicodeScalars)
        return editDistance(a, b, limit: max(a.count, b.count))!
    }
}
