/// The SQL texts a connection has prepared as named statements on the server, so that a
/// statement a store sends again and again (a write's upserts, its log entries, a snapshot's
/// `BEGIN`) is parsed and planned once per connection instead of on every call: parsing and
/// planning took most of a single write's server time (about 0.7 of 1.1 ms).
///
/// A text is prepared the second time it is sent (one sent once, such as a migration's
/// statement, is not worth a name), while fewer than ``limit`` are. Names are never reused
/// (`schemagen_1`, `schemagen_2`, ...). A statement that changes the schema (`CREATE`,
/// `ALTER`, `DROP`) forgets every name, so nothing planned against the old tables runs
/// again; the server keeps those statements until the connection closes.
struct PreparedStatements {
    /// The most texts prepared per connection.
    static let limit = 256
    /// The most texts remembered as sent once, before they are forgotten together.
    private static let candidateLimit = 4096

    private var names: [String: String] = [:]
    private var sentOnce: Set<String> = []
    private var counter = 0

    /// The name `sql` is prepared under, if it is.
    func name(of sql: String) -> String? { names[sql] }

    /// A new name to prepare `sql` under now, or nil when it runs unnamed this time.
    mutating func nameToPrepare(_ sql: String) -> String? {
        guard names.count < Self.limit, !Self.changesSchema(sql) else { return nil }
        guard sentOnce.remove(sql) != nil else {
            if sentOnce.count >= Self.candidateLimit { sentOnce.removeAll() }
            sentOnce.insert(sql)
            return nil
        }
        counter += 1
        return "schemagen_\(counter)"
    }

    /// Records that the server prepared `sql` as `name`.
    mutating func prepared(_ sql: String, as name: String) {
        names[sql] = name
    }

    /// After `sql` ran: a schema change forgets every prepared text.
    mutating func ran(_ sql: String) {
        if Self.changesSchema(sql) {
            names.removeAll()
            sentOnce.removeAll()
        }
    }

    static func changesSchema(_ sql: String) -> Bool {
        let head = sql.prefix { !$0.isWhitespace }.uppercased()
        return head == "CREATE" || head == "ALTER" || head == "DROP"
    }
}
