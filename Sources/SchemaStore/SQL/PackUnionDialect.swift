/// SQLite's dialect on a connection showing a user store over its packs (``PackUnion``):
/// a table the union covers is read as the union of its selects (a subquery under the
/// table's own name, so qualified columns still name it), and storage order is the
/// union's. ``PackUnion/packTable(_:pack:)`` names one pack's table alone.
struct PackUnionDialect: SQLDialect {
    private let base = SQLiteDialect()
    /// The selects whose union stands for each table the union covers.
    let arms: [String: [String]]

    func quote(_ identifier: String) -> String { base.quote(identifier) }
    func placeholder(_ index: Int) -> String { base.placeholder(index) }
    func identical(_ lhs: String, _ rhs: String) -> String { base.identical(lhs, rhs) }
    func identical(_ lhs: String, nonNullValue value: String) -> String { base.identical(lhs, nonNullValue: value) }
    func swiftOrdered(_ text: String) -> String { base.swiftOrdered(text) }
    var storageOrderColumn: String { quote(PackUnion.orderColumn) }
    func orderTerm(_ expression: String, descending: Bool) -> String { base.orderTerm(expression, descending: descending) }
    func indexTerm(_ expression: String, descending: Bool) -> String { base.indexTerm(expression, descending: descending) }
    func boolean(_ value: Bool) -> String { base.boolean(value) }
    var textFunction: String? { base.textFunction }

    /// Whether `table` is read as a union.
    func covers(_ table: String) -> Bool { arms[table] != nil }

    func unionArms(of table: String) -> [String]? { arms[table] }

    func tableReference(_ name: String) -> String {
        if let arms = arms[name] { return "(\(arms.joined(separator: " UNION ALL "))) AS \(quote(name))" }
        if name.hasPrefix("schemagen:pack:"), let slash = name.firstIndex(of: "/") {
            let table = String(name[name.index(after: slash)...])
            return "\(quote(String(name[..<slash]))).\(quote(table)) AS \(quote(table))"
        }
        return quote(name)
    }
}
