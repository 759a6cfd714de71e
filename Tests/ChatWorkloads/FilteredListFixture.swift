import ChatModels
import DeterministicRandom
import SchemaRuntime
import SchemaStore

/// Users of three statuses at different depths of the age index, and random sorted, limited
/// lists of one status: what the tests of filtered lists read in steps (a walk down the
/// sort's index, then the value's rows) run on SQLite and on PostgreSQL.
public enum FilteredListFixture {
    /// 3,000 users: 1,800 active aged 0..<80, 300 away of every age (few enough to read at
    /// once), 900 offline, all but 30 aged 80..<90 (a walk by age from the youngest passes
    /// a few of them, often fewer than a limit asks for); 60 names among them, so that sorts
    /// by name tie across the walk's end.
    public static func seed(_ store: Store) throws {
        var random = SplitMix64(seed: 3_008)
        try store.write { context in
            for n in 0..<3_000 {
                let (status, age): (UserStatus, Int) = switch n % 10 {
                case 0: (.away, Int.random(in: 0..<90, using: &random))
                case 1, 2, 3: (.offline, Int.random(in: n % 100 == 1 ? 0..<40 : 80..<90, using: &random))
                default: (.active, Int.random(in: 0..<80, using: &random))
                }
                try User(id: "u\(n)", name: "Name \(Int.random(in: 0..<60, using: &random))", age: age, status: status).save(to: &context)
            }
        }
    }

    /// A limited list of the users holding one status, sorted by age or name either way,
    /// perhaps only those of at least an age.
    public struct UserList: Sendable, CustomStringConvertible {
        public let status: UserStatus
        public let byName: Bool
        public let descending: Bool
        public let limit: Int
        public let offset: Int
        public let minimumAge: Int?

        public func ids(in context: Context) -> [String] {
            var users = User.query(in: context).filter(\.status == status)
            if let minimumAge { users = users.filter(\.age >= minimumAge) }
            let sorted = switch (byName, descending) {
            case (false, false): users.sorted(by: \.age)
            case (false, true): users.sorted(by: \.age.desc)
            case (true, false): users.sorted(by: \.name)
            case (true, true): users.sorted(by: \.name.desc)
            }
            return sorted.limit(limit, offset: offset).resolve().map(\.id)
        }

        public var description: String {
            "\(status) by \(byName ? "name" : "age")\(descending ? " descending" : ""), limit \(limit), offset \(offset), age >= \(minimumAge.map(String.init) ?? "any")"
        }
    }

    /// `count` random lists, every status in turn.
    public static func lists(_ count: Int) -> [UserList] {
        var random = SplitMix64(seed: 30)
        return (0..<count).map { round in
            UserList(status: [.active, .away, .offline][round % 3], byName: Bool.random(using: &random), descending: Bool.random(using: &random),
                     limit: [1, 3, 7, 20, 50, 51][Int.random(in: 0..<6, using: &random)],
                     offset: Bool.random(using: &random) ? 0 : Int.random(in: 1..<40, using: &random),
                     minimumAge: Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 0..<90, using: &random) : nil)
        }
    }
}
