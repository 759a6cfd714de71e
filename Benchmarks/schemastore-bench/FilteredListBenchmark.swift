import ChatModels
import DeterministicRandom
import Foundation
import SchemaRuntime
import SchemaStore

/// `schemastore-bench filtered-lists <path> <users> [rounds]`: the 20 youngest (or oldest)
/// users of one status, read on demand from SQLite, for statuses many and few users hold.
/// The file is filled once (kept for the next run: a build reading it must have filled its
/// own, as a writer makes the indexes its layout declares); each read is on a snapshot of
/// its own that keeps no rows. Prints the median of `rounds` reads per list, in ms.
///
/// The users (the chat domain's `User`: a hash index on `status`, ordered ones on `age` and
/// on `name`): 89% active, 10% offline, of every age; 1% away, all aged 99, the oldest.
enum FilteredListBenchmark {
    static let lists: [(name: String, status: UserStatus, descending: Bool)] = [
        ("active youngest", .active, false), ("offline oldest", .offline, true),
        ("away youngest", .away, false), ("away oldest", .away, true),
    ]

    static func run(path: String, users: Int, rounds: Int) throws {
        let url = URL(fileURLWithPath: path)
        if !FileManager.default.fileExists(atPath: path) {
            let seconds = try OnDemandBenchmark.milliseconds { try fill(url, users: users) } / 1000
            print(String(format: "filled %d users in %.1f s", users, seconds))
        }
        let store = try Store(.file(url), schema: ChatModelsSchema.self,
                              options: .init(readOnly: true, residency: .onDemand, cachedRowsPerSnapshot: 0))
        defer { store.close() }
        var line = "\(users) users, load \(OnDemandBenchmark.loadAverage()):"
        for (name, status, descending) in lists {
            var times: [Double] = []
            for _ in 0..<rounds {
                times.append(try OnDemandBenchmark.milliseconds {
                    let count = try store.read { context in
                        let users = User.query(in: context).filter(\.status == status)
                        return (descending ? users.sorted(by: \.age.desc) : users.sorted(by: \.age)).limit(20).resolve().count
                    }
                    precondition(count == 20)
                })
            }
            line += String(format: "  %@ %.2f", name, OnDemandBenchmark.median(times))
        }
        print(line)
    }

    static func fill(_ url: URL, users: Int) throws {
        var random = SplitMix64(seed: 11)
        let store = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(residency: .onDemand))
        defer { store.close() }
        for start in stride(from: 0, to: users, by: 50_000) {
            try store.write { context in
                for n in start..<min(start + 50_000, users) {
                    let (status, age): (UserStatus, Int) = switch n % 100 {
                    case 0: (.away, 99)
                    case 1...10: (.offline, Int.random(in: 0..<99, using: &random))
                    default: (.active, Int.random(in: 0..<99, using: &random))
                    }
                    try User(id: "u\(n)", name: "user \(n)", age: age, status: status).save(to: &context)
                }
            }
        }
    }
}
