/// A minimal line diff for `schemagen check`: shows what would change, `-` for lines in the
/// checked-in file and `+` for lines the generator produces now.
public enum TextDiff {
    /// Changed lines with up to `context` unchanged lines around them; empty when equal.
    public static func lines(old: String, new: String, oldName: String, newName: String, context: Int = 2) -> String {
        let a = old.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let b = new.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if a == b { return "" }
        // Longest common subsequence table, O(n * m): generated files are small.
        var lcs = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in stride(from: a.count - 1, through: 0, by: -1) {
            for j in stride(from: b.count - 1, through: 0, by: -1) {
                lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : max(lcs[i + 1][j], lcs[i][j + 1])
            }
        }
        enum Edit { case same(String), removed(String), added(String) }
        var edits: [Edit] = []
        var i = 0, j = 0
        while i < a.count || j < b.count {
            if i < a.count, j < b.count, a[i] == b[j] {
                edits.append(.same(a[i])); i += 1; j += 1
            } else if i < a.count, j == b.count || lcs[i + 1][j] >= lcs[i][j + 1] {
                // Removals first, as in a unified diff.
                edits.append(.removed(a[i])); i += 1
            } else {
                edits.append(.added(b[j])); j += 1
            }
        }
        let changed = edits.indices.filter { if case .same = edits[$0] { return false } else { return true } }
        var shown = Set<Int>()
        for index in changed { for k in max(0, index - context)...min(edits.count - 1, index + context) { shown.insert(k) } }
        var output = "--- \(oldName)\n+++ \(newName)\n"
        var previous = -1
        for index in shown.sorted() {
            if index != previous + 1 { output += "@@\n" }
            switch edits[index] {
            case .same(let line): output += "  \(line)\n"
            case .removed(let line): output += "- \(line)\n"
            case .added(let line): output += "+ \(line)\n"
            }
            previous = index
        }
        return output
    }
}
