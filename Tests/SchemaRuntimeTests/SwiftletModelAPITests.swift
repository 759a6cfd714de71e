import ChatModels
import Foundation
import SchemaRuntime
import Testing

/// SwiftletModel's query spellings (its README and current API), each checked for the
/// meaning SwiftletModel gives it, against the same result computed by hand.
@Suite struct SwiftletModelAPITests {
    static func context() throws -> Context {
        var context = Context()
        for (index, age) in [30, 12, 45, 30, 7, 61].enumerated() {
            try User(id: "u\(index)", name: "n\(index % 2)", age: age).save(to: &context)
        }
        try Chat(id: "c", users: .ids(["u0", "u2"])).save(to: &context)
        try Message(id: "m", text: "hi", author: .id("u2"), chat: .id("c")).save(to: &context)
        return context
    }

    @Test func firstAndLastAreQueriesFinishedLater() throws {
        let context = try Self.context()
        let byAge = User.query().sorted(by: \.age)
        let first: ContextFreeQuery<User> = byAge.first()
        #expect(first.resolve(in: context)?.id == "u4")
        #expect(byAge.last().resolve(in: context)?.id == "u5")
        // With a context, and with nested relations added to the first/last query.
        #expect(User.filter(\.age == 30, in: context).last().resolve()?.id == "u3")
        #expect(User.filter(\.age > 40, in: context).first().with(\.$chats).resolve()?.chats?.map(\.id) == ["c"])
        #expect(User.filter(\.age > 100).first().resolve(in: context) == nil)
    }

    @Test func contextFreeFiltersCombineWithOrAndAnd() throws {
        let context = try Self.context()
        let ages = User.query(in: context).resolve().map { ($0.id, $0.age) }
        // `.or(.filter(...))`: the static filter takes the context of the query it joins.
        let young = User.filter(\.age < 10, in: context).or(.filter(\.age > 60))
        #expect(young.resolve().map(\.id) == ages.filter { $0.1 < 10 || $0.1 > 60 }.map(\.0))
        let both = User.filter(\.age >= 12).and(User.filter(\.age <= 30)).resolve(in: context)
        #expect(both.map(\.id) == ages.filter { (12...30).contains($0.1) }.map(\.0))
        // Each side keeps its own sort and limit: the two oldest that are also named n0.
        let oldestTwo = User.query(in: context).sorted(by: \.age.desc).limit(2)
        let intersection = oldestTwo.and(User.filter(\.name == "n0", in: context))
        #expect(intersection.resolve().map(\.id) == ["u2"])
        #expect(intersection.explain().steps == ["intersection of 2 queries"])
    }

    @Test func instanceQueriesStaticDeleteAndUnwrappedToOneRelated() throws {
        var context = try Self.context()
        let message = try #require(context.find(Message.self, id: "m"))
        #expect(message.query().resolve(in: context)?.text == "hi")
        #expect(message.query(in: context).related(\.$author).resolve()?.id == "u2")
        // A to-one related query made without a context is finished later too.
        #expect(Message.query("m").related(\.$chat).resolve(in: context)?.id == "c")
        #expect(Message.query("none", in: context).related(\.$chat).resolve() == nil)
        try Message.delete(id: "m", from: &context)
        #expect(context.find(Message.self, id: "m") == nil)
        try Message.delete(id: "never stored", from: &context)
    }

    @Test func stringPredicatesOverSeveralFieldsRegexAndFuzzy() throws {
        var context = Context()
        let people = [("Ada Lovelace", "ada"), ("Grace Hopper", nil), ("Alan Turing", "turing42"), ("Edsger", "ewd"), ("adam", "Mada")]
        for (index, person) in people.enumerated() {
            try User(id: "u\(index)", name: person.0, username: person.1).save(to: &context)
        }
        let users = User.query(in: context).resolve()
        func ids(_ predicate: EntityPredicate<User>) -> [String] { User.filter(predicate, in: context).resolve().map(\.id) }
        func expected(_ test: (User) -> Bool) -> [String] { users.filter(test).map(\.id) }
        let fields: (User) -> [String] = { [$0.name] + ($0.username.map { [$0] } ?? []) }

        // Any of several fields; the full-text index over (name, username) narrows `contains` safely.
        #expect(ids(.string(\.name, \.username, contains: "ada")) == expected { fields($0).contains { $0.lowercased().contains("ada") } })
        #expect(ids(.string(\.name, \.username, hasPrefix: "ad")) == expected { fields($0).contains { $0.lowercased().hasPrefix("ad") } })
        #expect(ids(.string(\.name, notHavingPrefix: "A")) == expected { !$0.name.lowercased().hasPrefix("a") })
        #expect(ids(.string(\.name, notHavingSuffix: "ER", caseSensitive: true)) == users.map(\.id))
        #expect(ids(.string(\.name, notHavingSuffix: "er")) == expected { !$0.name.hasSuffix("er") })
        #expect(ids(.string(\.username, notHavingPrefix: "ad")) == expected { !($0.username?.lowercased().hasPrefix("ad") ?? false) })

        // Regular expressions: Swift Regex, NSRegularExpression, a pattern with options; and negations.
        #expect(ids(.string(\.name, matches: /[A-Z][a-z]+ [A-Z]/)) == expected { $0.name.contains(/[A-Z][a-z]+ [A-Z]/) })
        #expect(ids(.string(\.name, notMatching: /ing$/)) == expected { !$0.name.contains(/ing$/) })
        let digits = try NSRegularExpression(pattern: "[0-9]")
        #expect(ids(.string(\.name, \.name, matches: digits)) == [])
        #expect(ids(.string(\.name, notMatching: digits)) == users.map(\.id))
        #expect(ids(try .string(\.name, matchesRegex: "^a", options: [.caseInsensitive])) == expected { $0.name.lowercased().hasPrefix("a") })
        #expect(ids(try .string(\.name, matchesRegex: "^a", caseSensitive: false)) == expected { $0.name.lowercased().hasPrefix("a") })
        #expect(ids(try .string(\.name, notMatchingRegex: "^a")) == expected { !$0.name.hasPrefix("a") })
        #expect(throws: InvalidQuery.self) { try EntityPredicate<User>.string(\.name, matchesRegex: "(") }

        // Fuzzy (SwiftletModel's `matches`): any three-letter piece of a query word, case-insensitively.
        func trigrams(_ text: String) -> [String] {
            text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).flatMap { word -> [String] in
                let characters = Array(word)
                return characters.count < 3 ? [] : (0...(characters.count - 3)).map { String(characters[$0..<($0 + 3)]) }
            }
        }
        for query in ["lovelase", "hop", "xx", "TURING", "mad ewd"] {
            let pieces = trigrams(query)
            #expect(ids(.string(\.name, \.username, fuzzyMatches: query)) == expected { user in
                fields(user).contains { field in pieces.contains { field.lowercased().contains($0) } }
            }, "\(query)")
        }
        // Full-text `matches` stays all-words: "hop" is not a word of any name.
        #expect(ids(.string(\.name, matches: "hop")) == [])
    }

    @Test func saveTimesAreReadSortedAndFilteredLikeSwiftletModelMetadata() throws {
        var context = Context()
        try User(id: "u", name: "U").save(to: &context)
        try Chat(id: "c").save(to: &context)
        for index in 0..<12 {
            try Message(id: "m\(index)", text: "t", author: .id("u"), chat: .id("c")).save(to: &context)
        }
        // Saving some again moves them later.
        for index in [3, 7, 1] { try context.find(Message.self, id: "m\(index)")!.save(to: &context) }
        let messages = Message.query(in: context).resolve()
        let times = messages.map { $0.updatedAt(in: context)! }

        #expect(context.find(User.self, id: "u")!.updatedAt(in: context) == nil, "User does not track save times")
        #expect(Message.updatedAt(in: context) == times.max())
        #expect(User.updatedAt(in: context) == nil)
        // The newest save time in the graph a chat heads: its messages' (the chat itself is untracked).
        #expect(context.find(Chat.self, id: "c")!.updatedAt(in: context, reachingThroughStoredLinks: true) == times.max())
        #expect(context.find(Chat.self, id: "c")!.updatedAt(in: context, reachingThroughStoredLinks: false) == nil)
        // #30: withNested, as SwiftletModel, looks at what the instance has loaded: nothing for a
        // chat resolved alone, its messages once a query loaded them, and only those.
        #expect(context.find(Chat.self, id: "c")!.updatedAt(in: context, withNested: true) == nil)
        #expect(Chat.query("c", in: context).with(\.$messages).resolve()!.updatedAt(in: context, withNested: true) == times.max())
        let someMessages = Chat.query("c", in: context).with(\.$messages) { $0.filter(\.id == "m0") }.resolve()!
        #expect(someMessages.updatedAt(in: context, withNested: true) == times[0])
        // Loaded at depth two: a user with the chats loaded with their messages.
        try User(id: "u", name: "U", chats: .ids(["c"])).save(to: &context)
        #expect(User.query("u", in: context).with(\.$chats) { $0.with(\.$messages) }.resolve()!.updatedAt(in: context, withNested: true) == times.max())
        #expect(User.query("u", in: context).with(\.$chats).resolve()!.updatedAt(in: context, withNested: true) == nil)

        let byTime = messages.indices.sorted { (times[$0], $0) < (times[$1], $1) }.map { messages[$0].id }
        #expect(Message.query(in: context).sorted(by: .updatedAt).resolve().map(\.id) == byTime)
        let newestFirst = messages.indices.sorted { times[$0] != times[$1] ? times[$0] > times[$1] : $0 < $1 }.map { messages[$0].id }
        #expect(Message.query(in: context).sorted(by: .updatedAt.desc).limit(5).resolve().map(\.id) == Array(newestFirst.prefix(5)))

        let window = times.sorted()[2]...times.sorted()[8]
        let within = Message.query(in: context).updated(within: window)
        #expect(within.resolve().map(\.id) == messages.filter { window.contains($0.updatedAt(in: context)!) }.map(\.id))
        #expect(within.count() == messages.filter { window.contains($0.updatedAt(in: context)!) }.count)
        #expect(within.explain().steps == ["index range Message.updatedAt"])
        #expect(User.query(in: context).updated(within: Date.distantPast...Date.distantFuture).count() == 0)
    }

    @Test func descendingIsAComparableValue() {
        let ages = [30, 12, 45, 30, 7]
        #expect(ages.sorted { $0.desc < $1.desc } == ages.sorted(by: >))
        #expect(5.desc > 7.desc && 5.desc == 5.desc && Set([1.desc, 1.desc]).count == 1)
        #expect(["b", "a", "c"].max { $0.desc < $1.desc } == "a")
    }

    @Test func mergeStrategiesSpelledAsInSwiftletModel() {
        let old = User(id: "u", name: "Old", username: "old", age: 40)
        let new = User(id: "u", name: "New", username: nil, age: 30)
        // Value-level patch: the new value, else the stored one.
        #expect(MergeStrategy<String?>.patch().merge(nil, new: "a") == "a")
        #expect(MergeStrategy<String?>.patch().merge("a", new: nil) == "a")
        // lastWriteWins(strategies..., comparedBy:): applied when the new entity is at least as recent.
        let byAge = MergeStrategy<User>.lastWriteWins(.patch(\.username), comparedBy: \.age)
        #expect(byAge.merge(old, new: new) == old, "older by age: kept")
        let newer = User(id: "u", name: "New", username: nil, age: 50)
        let merged = byAge.merge(old, new: newer)
        #expect(merged.name == "New" && merged.username == "old" && merged.age == 50)
        #expect(MergeStrategy<User>.lastWriteWins(comparedBy: \.age).merge(old, new: newer) == newer)
        let byEmail = MergeStrategy<User>.lastWriteWins(comparedBy: \.email)
        #expect(byEmail.merge(User(id: "u", name: "A", email: "b"), new: User(id: "u", name: "B")).name == "A", "nil is older than a value")
        // #30: as SwiftletModel, an older new entity still merges, with the two swapped: the
        // stored (newer) tags are appended onto the new ones; a tie counts the stored as newer.
        let byTime = MergeStrategy<Message>.lastWriteWins(.append(\.tags), comparedBy: \.timestamp)
        let stored = Message(id: "m", text: "stored", timestamp: 5, tags: ["4"])
        #expect(byTime.merge(stored, new: Message(id: "m", text: "late", timestamp: 3, tags: ["3"])).tags == ["3", "4"])
        #expect(byTime.merge(stored, new: Message(id: "m", text: "late", timestamp: 3, tags: ["3"])).text == "stored")
        #expect(byTime.merge(stored, new: Message(id: "m", text: "tie", timestamp: 5, tags: ["3"])).text == "stored")
        #expect(byTime.merge(stored, new: Message(id: "m", text: "newer", timestamp: 9, tags: ["9"])).tags == ["4", "9"])
        let byEdit = MergeStrategy<Message>.lastWriteWins(.append(\.tags), comparedBy: \.editedAt)
        let edited = Message(id: "m", text: "edited", editedAt: Date(timeIntervalSinceReferenceDate: 1), tags: ["e"])
        #expect(byEdit.merge(edited, new: Message(id: "m", text: "plain", tags: ["p"])).tags == ["p", "e"])
        #expect(byEdit.merge(Message(id: "m", text: "plain", tags: ["p"]), new: edited).tags == ["p", "e"])
    }

    /// #30: the metadata filter as a predicate, combined with other conditions.
    @Test func updatedWithinIsAPredicate() throws {
        var context = Context()
        try User(id: "u", name: "U").save(to: &context)
        try Chat(id: "c").save(to: &context)
        for index in 0..<10 { try Message(id: "m\(index)", text: "t", timestamp: index, author: .id("u"), chat: .id("c")).save(to: &context) }
        let all = Message.query(in: context).resolve()
        let times = all.map { $0.updatedAt(in: context)! }
        let window = times[3]...times[6]
        let inWindow = Set(all.filter { window.contains($0.updatedAt(in: context)!) }.map(\.id))
        #expect(Set(Message.filter(.updated(within: window), in: context).resolve().map(\.id)) == inWindow)
        #expect(Set(Message.filter(.updated(within: window) || \.timestamp == 9, in: context).resolve().map(\.id)) == inWindow.union(["m9"]))
        #expect(Set(Message.filter(.updated(since: times[8]) && \.timestamp < 9, in: context).resolve().map(\.id))
                == Set(all.filter { $0.updatedAt(in: context)! >= times[8] && $0.timestamp < 9 }.map(\.id)))
        #expect(Message.query(in: context).updated(within: window).count() == inWindow.count)
    }

    /// #30: `filter` after `first()` / `last()` (and on any single query): the entity when it
    /// satisfies the predicate, else nil.
    @Test func filterAfterFirstOrLast() throws {
        var context = Context()
        for (index, age) in [30, 12, 45].enumerated() { try User(id: "u\(index)", name: "n\(index)", age: age).save(to: &context) }
        let byAge = User.query(in: context).sorted(by: \.age)
        #expect(byAge.first().filter(\.age < 18).resolve()?.id == "u1")
        #expect(byAge.first().filter(\.age > 18).resolve() == nil)
        #expect(byAge.last().filter(\.age > 40).resolve()?.id == "u2")
        #expect(User.query("u0", in: context).filter(\.name == "n0").resolve()?.id == "u0")
        #expect(User.query("u0").filter(\.name == "x").resolve(in: context) == nil)
        #expect(byAge.first().filter(.custom { $0.name.hasPrefix("n") }).resolve()?.id == "u1")
    }

    /// #30: matching options on NSRegularExpression predicates, and regular expressions over
    /// optional fields (nil has no match) and several fields at once.
    @Test func regularExpressionsTakeMatchingOptionsAndOptionalFields() throws {
        var context = Context()
        try User(id: "1", name: "Ada Lovelace", username: "ada").save(to: &context)
        try User(id: "2", name: "Grace", username: nil).save(to: &context)
        try User(id: "3", name: "Lovelace fan", username: "fan").save(to: &context)
        let lovelace = try NSRegularExpression(pattern: "Lovelace")
        #expect(User.filter(.string(\.name, matches: lovelace), in: context).resolve().map(\.id) == ["1", "3"])
        #expect(User.filter(.string(\.name, matches: lovelace, options: [.anchored]), in: context).resolve().map(\.id) == ["3"])
        #expect(User.filter(.string(\.name, notMatching: lovelace, options: [.anchored]), in: context).resolve().map(\.id) == ["1", "2"])
        #expect(User.filter(.string(\.username, matches: #/^a/#), in: context).resolve().map(\.id) == ["1"])
        #expect(User.filter(.string(\.username, notMatching: #/^a/#), in: context).resolve().map(\.id) == ["2", "3"])
        #expect(User.filter(.string(\.name, \.username, matches: #/^(Grace|fan)$/#), in: context).resolve().map(\.id) == ["2", "3"])
        #expect(User.filter(try .string(\.username, matchesRegex: "^F", caseSensitive: false), in: context).resolve().map(\.id) == ["3"])
    }

    /// #30: `lastWriteWins(strategies...)` without `comparedBy:` for a `Comparable` entity.
    @Test func lastWriteWinsComparesComparableEntities() {
        let stored = Ranked(timestamp: 5, tags: ["4"]), late = Ranked(timestamp: 3, tags: ["3"]), newer = Ranked(timestamp: 9, tags: ["9"])
        let strategy = MergeStrategy<Ranked>.lastWriteWins(.append(\.tags))
        #expect(strategy.merge(stored, new: late).tags == ["3", "4"] && strategy.merge(stored, new: newer).tags == ["4", "9"])
        #expect(MergeStrategy<Ranked>.lastWriteWins().merge(stored, new: late) == stored)
    }

    struct Ranked: Comparable, Sendable {
        var timestamp: Int
        var tags: [String]
        static func < (a: Ranked, b: Ranked) -> Bool { a.timestamp < b.timestamp }
    }

    @Test func swiftletModelKeyedJSONDecodes() throws {
        let json = """
        {"id": "c", "title": "T",
         "users": {"objects": [{"id": "u1", "name": "Ada"}]},
         "messages": {"ids": ["m1"]}}
        """
        let decoder = JSONDecoder()
        decoder.relationDecodingStrategy = .keyedContainer
        let chat = try decoder.decode(Chat.self, from: Data(json.utf8))
        #expect(chat.users?.map(\.name) == ["Ada"] && chat.$messages.ids == ["m1"])
        let message = try JSONDecoder().decode(Message.self, from: Data(#"{"id": "m", "text": "t", "author": {"object": {"id": "u", "name": "Bo"}}}"#.utf8))
        #expect(message.author?.name == "Bo")
    }

    @Test func slicesResolveAsAppendingListsThatSaveAsAppends() throws {
        var context = Context()
        try User(id: "u", name: "U").save(to: &context)
        try Chat(id: "c").save(to: &context)
        for index in 0..<5 { try Message(id: "m\(index)", text: "t", timestamp: index, author: .id("u"), chat: .id("c")).save(to: &context) }
        let latest = try #require(Chat.query("c", in: context).with(slice: \.$messages) { $0.sorted(by: \.timestamp.desc).limit(2).id(\.$author) }.resolve())
        #expect(latest.$messages.isAppending && latest.messages?.map(\.id) == ["m4", "m3"])
        let ids = try #require(Chat.query("c", in: context).id(slice: \.$messages) { $0.limit(1) }.resolve())
        #expect(ids.$messages.isAppending && ids.$messages.ids == ["m0"])
        #expect(Chat.query("c", in: context).fragment(slice: \.$users).resolve()?.$users.isAppending == true)

        // Saved into a context that has other messages of the chat, a slice adds to them.
        var other = Context()
        try User(id: "u", name: "U").save(to: &other)
        try Chat(id: "c", messages: .relation([Message(id: "old", text: "t", author: .id("u"))])).save(to: &other)
        try latest.save(to: &other)
        #expect(Chat.query("c", in: other).with(\.$messages).resolve()?.messages?.map(\.id) == ["old", "m4", "m3"])
    }
}
