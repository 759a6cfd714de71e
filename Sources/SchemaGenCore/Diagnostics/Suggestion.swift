/// "Did you mean" suggestions for misspelled names.
enum Suggestion {
    /// The candidate closest to `name` by edit distance, if it is close enough to be a typo.
    static func closest(to name: String, in candidates: some Sequence<String>) -> String? {
        let limit = max(1, name.count / 3)
        var best: (String, Int)?
        for candidate in candidates {
            let distance = editDistance(name.lowercased(), candidate.lowercased())
            if distance <= limit, distance < (best?.1 ?? .max) { best = (candidate, distance) }
        }
        return best?.0
    }

    /// A hint sentence for `closest`, or nil.
    static func didYouMean(_ name: String, in candidates: some Sequence<String>) -> String? {
        closest(to: name, in: candidates).map { "did you mean '\($0)'?" }
    }

    /// Levenshtein distance. O(n * m).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...max(b.count, 1) where j <= b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
