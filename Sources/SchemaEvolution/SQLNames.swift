/// SQL names for schema names. SQLite compares identifiers ignoring (ASCII) case, while
/// Swift does not: fields `any` and `Any` are two columns, entities `Tag` and `tag` two
/// tables. Each name is kept as written, and a later one equal to an earlier one ignoring
/// case gets `:2`, `:3`... appended (`:` cannot occur in a schema name).
public enum SQLNames {
    public static func unique(_ names: [String]) -> [String] {
        var seen: [String: Int] = [:]
        return names.map { name in
            let key = name.lowercased()
            seen[key, default: 0] += 1
            let count = seen[key]!
            return count == 1 ? name : "\(name):\(count)"
        }
    }
}
