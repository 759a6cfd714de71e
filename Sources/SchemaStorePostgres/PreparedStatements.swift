@_spi(StoreServer) import SchemaStore

/// The SQL texts a connection has prepared as named statements on the server, so that a
/// statement a store sends again and again (a write's upserts, its log entries, a snapshot's
/// `BEGIN`) is parsed and planned once per connection instead of on every call: parsing and
/// planning took most of a single write's server time (about 0.7 of 1.1 ms).
///
/// A text is prepared the second time it is sent (one sent once, such as a migration's
/// statement, is not worth a name). When ``limit`` are, the next one to prepare first drops
/// them all (`DEALLOCATE ALL`), and the busy ones are prepared again as they come back:
/// a connection sending more texts than that (a big schema's writes, each sent as one
/// statement of several parts) pays for preparing its busy ones now and then, rather than
/// running every later text unprepared. Names are never reused (`schemagen_1`,
/// `schemagen_2`, ...). A statement that changes the schema (`CREATE`, `ALTER`, `DROP`)
/// forgets every name, so nothing planned against the old tables runs again; the server
/// keeps those statements until the connection closes.
struct PreparedStatements {
    /// The most texts prepared per connection.
    static let limit = 256
    /// The most texts remembered as sent once, before they are forgotten together.
    private static let candidateLimit = 4096

    /// Keyed by text, hashed by samples of it (``SQLTextKey``): every statement sent is
    /// looked up, and a write's fused statement runs to a kilobyte.
    private var names: [SQLTextKey: String] = [:]
    private var sentOnce: Set<SQLTextKey> = []
    private var counter = 0

    /// The name `sql` is prepared under, if it is.
    func name(of sql: String) -> String? { names[SQLTextKey(sql)] }

    /// A new name to prepare `sql` under now, or nil when it runs unnamed this time. With
    /// `droppingAll`, every name was forgotten to make room: the server must drop them
    /// (``dropAll``) before it prepares this one.
    mutating func nameToPrepare(_ sql: String) -> (name: String, droppingAll: Bool)? {
        guard !Self.changesSchema(sql) else { return nil }
        guard sentOnce.remove(SQLTextKey(sql)) != nil else {
            if sentOnce.count >= Self.candidateLimit { sentOnce.removeAll() }
            sentOnce.insert(SQLTextKey(sql))
            return nil
        }
        let droppingAll = names.count >= Self.limit
        if droppingAll { names.removeAll() }
        counter += 1
        return ("schemagen_\(counter)", droppingAll)
    }

    /// The statement that drops every prepared text of the connection.
    static let dropAll = "DEALLOCATE ALL"

    /// Records that the server prepared `sql` as `name`.
    mutating func prepared(_ sql: String, as name: String) {
        names[SQLTextKey(sql)] = name
    }

    /// After `sql` ran: a schema change forgets every prepared text.
    mutating func ran(_ sql: String) {
        if Self.changesSchema(sql) {
            names.removeAll()
            sentOnce.removeAll()
        }
    }

    /// Whether `sql`'s first word is `CREATE`, `ALTER` or `DROP`, in any case. Asked of
    /// every statement sent, so it reads at most 7 bytes and allocates nothing (splitting
    /// off and uppercasing the word as a `String` took 5% of a single write's client time).
    static func changesSchema(_ sql: String) -> Bool {
        var head: UInt64 = 0
        var length = 0
        for byte in sql.utf8 {
            if byte == 0x20 || (0x09...0x0D).contains(byte) { break }
            length += 1
            if length > 6 { return false }
            head = head << 8 | UInt64((0x61...0x7A).contains(byte) ? byte - 0x20 : byte)
        }
        return head == schemaWords.create || head == schemaWords.alter || head == schemaWords.drop
    }

    /// The words of ``changesSchema(_:)``, packed as it packs a statement's first word.
    private static let schemaWords = (create: packed("CREATE"), alter: packed("ALTER"), drop: packed("DROP"))

    private static func packed(_ word: String) -> UInt64 {
        word.utf8.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
