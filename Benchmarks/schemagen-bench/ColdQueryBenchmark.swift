import BenchModels
import Foundation
import SchemaRuntime

// `schemagen-bench cold [users]`: what the first indexed equality query of a process costs,
// step by step, beside the same query again and a dictionary lookup. Run it several times
// (each run is one cold start): `for i in $(seq 9); do schemagen-bench cold; done`.
// `COLD_WARM=explain` (or `keys`, `indexes`, `relations`) first runs that much of a query,
// to see which part of the first one's cost it takes away.

func runColdQueryBenchmark(users: Int) throws {
    var context = Context()
    for id in 0..<users { try User(id: id, name: "user\(id)", age: id % 90).save(to: &context) }
    var byAge: [Int: [Int]] = [:]
    for id in 0..<users { byAge[id % 90, default: []].append(id) }
    func microseconds(_ body: () -> Void) -> Double {
        let start = ContinuousClock.now
        body()
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.attoseconds) / 1e12 + Double(elapsed.components.seconds) * 1e6
    }
    var sink = 0
    let dictionary = microseconds { sink &+= byAge[42]?.count ?? 0 }
    // The first query, in its steps: build the predicate (key path and comparison), the query,
    // run it through the index, resolve the entities.
    let warm = ProcessInfo.processInfo.environment["COLD_WARM"] ?? ""
    var touched = 0.0
    if warm.contains("indexes") { touched += microseconds { sink &+= User.indexes.count } }
    if warm.contains("relations") { touched += microseconds { sink &+= User.relations.count } }
    if warm.contains("explain") { touched += microseconds { sink &+= User.filter(\User.age == 1, in: context).explain().steps.count } }
    if warm.contains("keys") { touched += microseconds { sink &+= User.filter(\User.age == 1, in: context).count() } }
    if !warm.isEmpty { print(String(format: "warmed %@: %.1f us", warm, touched)) }
    var predicate: EntityPredicate<User>!
    let build = microseconds { predicate = \User.age == 42 }
    var query: QueryList<User>!
    let makeQuery = microseconds { query = User.filter(predicate, in: context) }
    let first = microseconds { sink &+= query.resolve().count }
    let second = microseconds { sink &+= User.filter(\User.age == 43, in: context).resolve().count }
    let third = microseconds { sink &+= User.filter(\User.age == 44, in: context).resolve().count }
    let otherShape = microseconds { sink &+= User.filter(\User.age >= 88, in: context).count() }
    print(String(format: "cold: dictionary %.1f us | first query: predicate %.1f us, query %.1f us, resolve %.1f us | second %.1f us, third %.1f us | first range count %.1f us (%d)",
                 dictionary, build, makeQuery, first, second, third, otherShape, sink))
}
