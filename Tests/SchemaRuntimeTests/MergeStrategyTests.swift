import CatalogModels
import ChatModels
import Foundation
import SchemaRuntime
import Testing

/// README "Incomplete Data Handling": merge strategies and fragments.
@Suite struct MergeStrategyTests {
    @Test func defaultReplacesAndFragmentPatches() throws {
        var context = Context()
        let profile = Profile(bio: "Swift", location: "Berlin")
        try User(id: "1", name: "Bob", avatar: Avatar(small: nil, large: nil), profile: profile).save(to: &context)

        // A fragment without a profile keeps the stored one (User's schema: merge fragment: patch).
        try User(id: "1", name: "Bobby").save(to: &context, options: .fragment)
        #expect(context.find(User.self, id: "1")?.profile == profile)
        #expect(context.find(User.self, id: "1")?.name == "Bobby")

        // The default strategy replaces.
        try User(id: "1", name: "Bob").save(to: &context)
        #expect(context.find(User.self, id: "1")?.profile == nil)
    }

    @Test func fragmentRelationsUseTheFragmentStrategy() throws {
        var context = Context()
        try User(id: "1", name: "Bob", profile: Profile(bio: "kept")).save(to: &context)
        var chat = Chat(id: "c")
        chat.$users = .fragment([User(id: "1", name: "Bob")])
        try chat.save(to: &context)
        #expect(context.find(User.self, id: "1")?.profile?.bio == "kept")
    }

    @Test func schemaDeclaredAppendMergesArrays() throws {
        var context = Context()
        try Message(id: "m", text: "a", tags: ["x"]).withRequiredLinks().save(to: &context)
        try Message(id: "m", text: "a", tags: ["y"]).save(to: &context, options: .fragment)
        #expect(context.find(Message.self, id: "m")?.tags == ["x", "y"])
    }

    @Test func schemaDeclaredLastWriteWins() throws {
        var context = Context()
        let product = Product(id: UUID(), sku: "S", title: "T", price: 1)
        try product.save(to: &context)
        let newer = Review(id: UUID(), rating: 5, body: "new", createdAt: Date(timeIntervalSince1970: 200), product: .id(product.id))
        var older = newer
        older.body = "old"
        older.createdAt = Date(timeIntervalSince1970: 100)
        try newer.save(to: &context)
        try older.save(to: &context) // Review's default strategy is lastWriteWins(createdAt)
        #expect(context.find(Review.self, id: newer.id)?.body == "new")
    }

    @Test func callersCanPassTheirOwnStrategy() throws {
        var context = Context()
        try User(id: "1", name: "Bob", age: 30).save(to: &context)
        let keepOlderAge = MergeStrategy<User> { old, new in
            var merged = new
            merged.age = max(old.age, new.age)
            return merged
        }
        try User(id: "1", name: "Bob", age: 20).save(to: &context, options: MergeStrategy(keepOlderAge, .patch(\.profile)))
        #expect(context.find(User.self, id: "1")?.age == 30)
    }
}
