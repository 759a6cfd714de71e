/// An SQL index kept for a schema index (ordered, hash or unique), so that SQL finds and
/// orders rows as the in-memory index would for a store reading on demand.
///
/// Always a plain index: uniqueness is the runtime's (collision policies, Swift's equality of
/// strings), never the database's. Text columns are indexed in Swift's string order (the
/// `schemagen` collation) so that compiled comparisons and sorts can use them.
struct SQLIndex: Hashable, Sendable {
    struct Column: Hashable, Sendable {
        var name: String
        var descending: Bool
        var swiftOrdered: Bool
    }

    var name: String
    var table: String
    var columns: [Column]

    /// Names of the SQL indexes the store manages: created, and dropped when the schema
    /// no longer declares them. Other indexes in the file are left alone.
    static func isManaged(_ name: String) -> Bool {
        name.contains(":index:") || name.hasSuffix(":target")
    }

    /// Every SQL index `layout` declares (its entities' indexes, each link table's index by
    /// target), by name, with the statement that creates each in `dialect`.
    static func wanted(by layout: StoreLayout, in dialect: any SQLDialect) -> [String: String] {
        var wanted: [String: String] = [:]
        for entity in layout.entities {
            for index in entity.sqlIndexes { wanted[index.name] = index.createStatement(dialect) }
        }
        for link in layout.links {
            let index = linkTargets(link.name)
            wanted[index.name] = index.createStatement(dialect)
        }
        return wanted
    }

    /// The index a link table needs to be read backwards (the entities linking to a target).
    static func linkTargets(_ link: String) -> SQLIndex {
        SQLIndex(name: link + ":target", table: link, columns: [Column(name: "target", descending: false, swiftOrdered: false)])
    }

    func createStatement(_ dialect: any SQLDialect) -> String {
        let columns = columns.map { column in
            let name = dialect.quote(column.name)
            return dialect.indexTerm(column.swiftOrdered ? dialect.swiftOrdered(name) : name, descending: column.descending)
        }
        return "CREATE INDEX \(dialect.quote(name)) ON \(dialect.quote(table)) (\(columns.joined(separator: ", ")))"
    }
}
