import DeterministicRandom
import Foundation
import SchemaRuntime
import SchemaStore
import Testing

/// A unique index whose resolver accepts collisions (SwiftletModel's resolvers): random saves,
/// updates and deletes against a reference; at most one account is current, and lookups by
/// the shared key find every account holding it, as a scan does; the same after a store reopen.
@Suite struct AcceptedCollisionTests {
    @Test(arguments: 0..<4)
    func onlyOneIsCurrentAndLookupsFindEveryHolder(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var context = Context()
        var current: String?
        var stored = Set<String>()
        for step in 0..<300 {
            let id = "a\(Int.random(in: 0..<25, using: &random))"
            if Int.random(in: 0..<5, using: &random) == 0 {
                try Account.delete(id: id, from: &context)
                stored.remove(id)
                if current == id { current = nil }
            } else {
                let makeCurrent = Int.random(in: 0..<4, using: &random) == 0
                try Account(id: id, name: "n\(step)", isCurrent: makeCurrent).save(to: &context)
                stored.insert(id)
                if makeCurrent { current = id } else if current == id { current = nil }
            }
            let all = Account.query(in: context).resolve()
            #expect(Set(all.map(\.id)) == stored)
            #expect(all.filter(\.isCurrent).map(\.id) == (current.map { [$0] } ?? []), "step \(step)")
            // Indexed lookups (the unique index) against the rows themselves.
            let others = Account.filter(\.isCurrent == false, in: context)
            #expect(others.resolve().map(\.id) == all.filter { !$0.isCurrent }.map(\.id), "step \(step): \(others.explain())")
            #expect(others.count() == all.filter { !$0.isCurrent }.count)
            #expect(Account.filter(\.isCurrent == true, in: context).resolve().map(\.id) == (current.map { [$0] } ?? []))
        }
        #expect(Account.filter(\.isCurrent == false, in: context).explain().steps == ["index lookup Account.isCurrentUnique"])

        // Written to a store and read back: the shared key loads as it was accepted.
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("accepted-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: url) }
        let store = try Store(.file(url), schema: GeneratedCodeTestsSchema.self)
        let snapshot = context
        try store.write { context in try Account.query(in: snapshot).resolve().save(to: &context) }
        store.close()
        let reopened = try Store(.file(url), schema: GeneratedCodeTestsSchema.self).context
        #expect(Account.filter(\.isCurrent == false, in: reopened).resolve().map(\.id).sorted()
                == Account.query(in: context).resolve().filter { !$0.isCurrent }.map(\.id).sorted())
    }

    @Test func aResolverThatDoesNotAcceptStillFailsTheSave() throws {
        var context = Context()
        try Scored(id: "1", email: "a@x").save(to: &context)
        #expect(throws: UniqueConstraintViolation.self) { try Scored(id: "2", email: "a@x").save(to: &context) }
    }
}
