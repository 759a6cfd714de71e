import ChatModels
import Foundation
import SchemaRuntime
import Testing

/// One test per bug reproduced in issue #7 on the chat domain. Each failed before its fix.
/// (Bugs that need other field types are in GeneratedCodeTests/RegressionTests.swift.)
@Suite struct RegressionTests {
    static func users(_ context: inout Context) throws {
        try [User(id: "1", name: "A"), User(id: "2", name: "B", email: "b@x", isCurrent: true)].save(to: &context)
    }

    // #7.1: a unique index never stores nil keys, so it cannot answer `== nil`.
    @Test func uniqueIndexDoesNotAnswerNilLookups() throws {
        var context = Context()
        try Self.users(&context)
        #expect(User.filter(\.email == nil, in: context).resolve().map(\.id) == ["1"])
        #expect(User.filter(\.email == nil, in: context).count() == 1)
        #expect(User.filter(\.isCurrent == nil && \.age >= 0, in: context).resolve().map(\.id) == ["1"])
        #expect(User.filter(\.email == nil || \.name == "B", in: context).resolve().map(\.id) == ["1", "2"])
        #expect(User.filter(\.email != nil, in: context).resolve().map(\.id) == ["2"])
    }

    // #7.3: count() honours updated(since:).
    @Test func countHonoursUpdatedSince() throws {
        var context = Context()
        try [Message(id: "1", text: "a").withRequiredLinks(), Message(id: "2", text: "b").withRequiredLinks()].save(to: &context)
        let query = Message.query(in: context).updated(since: .distantFuture)
        #expect(query.resolve().isEmpty)
        #expect(query.count() == 0)
        #expect(Message.query(in: context).updated(since: .distantPast).count() == 2)
    }

    // #7.4: nested queries honour updated(since:).
    @Test func nestedQueriesHonourUpdatedSince() throws {
        var context = Context()
        try Fixtures.readmeChat.save(to: &context)
        let future = Chat.query("1", in: context).with(\.$messages) { $0.updated(since: .distantFuture) }.resolve()
        #expect(future?.messages?.isEmpty == true)
        let past = Chat.query("1", in: context).with(\.$messages) { $0.updated(since: .distantPast) }.resolve()
        #expect(past?.messages?.map(\.id) == ["1", "2"])
    }

    // #7.5: or(QueryList) keeps each side's conditions, also inside nested closures.
    @Test func orOfQueryListsKeepsBothSides() throws {
        var context = Context()
        try Chat(id: "c", messages: .relation((1...10).map { Message(id: "\($0)", text: "t", timestamp: $0).withAuthor() })).save(to: &context)
        let left = Message.filter(\.timestamp > 8, in: context).updated(since: .distantFuture)
        let right = Message.filter(\.timestamp < 3, in: context)
        #expect(left.or(right).resolve().map(\.id) == ["1", "2"])
        #expect(right.or(left).resolve().map(\.id) == ["1", "2"])
        #expect(right.or(left).count() == 2)
        let nested = Chat.query("c", in: context).with(\.$messages) {
            $0.filter(\.timestamp > 8).or($0.filter(\.timestamp < 2))
        }.resolve()
        #expect(nested?.messages?.map(\.id) == ["1", "9", "10"])
        let nestedPredicate = Chat.query("c", in: context).with(\.$messages) {
            $0.updated(since: .distantFuture).or(\.timestamp == 4)
        }.resolve()
        #expect(nestedPredicate?.messages?.map(\.id) == ["4"])
    }

    // #7.6: ties keep the source order whatever the plan; duplicate ids appear once.
    @Test func sortTiesKeepSourceOrderWhateverThePlan() throws {
        var context = Context()
        // User.age has an ordered index. Few rows: the index sort path; many: the stable sort.
        let users = (0..<40).map { User(id: "u\($0)", name: "n", age: $0 % 2) }
        try users.save(to: &context)
        let ids = ["u7", "u3", "u5", "u2", "u3", "u0"]
        let expected = ["u2", "u0", "u7", "u3", "u5"]
        #expect(User.query(ids, in: context).sorted(by: \.age).resolve().map(\.id) == expected)
        #expect(User.query(ids, in: context).sorted(by: \.age.desc).resolve().map(\.id) == ["u7", "u3", "u5", "u2", "u0"])
        #expect(User.query(ids, in: context).resolve().map(\.id) == ["u7", "u3", "u5", "u2", "u0"])
        // A large id list takes the index path; ties must still follow the list.
        let many = users.map(\.id).reversed().map { $0 }
        let sorted = User.query(many, in: context).sorted(by: \.age).resolve().map(\.id)
        #expect(sorted == many.filter { Int($0.dropFirst())! % 2 == 0 } + many.filter { Int($0.dropFirst())! % 2 == 1 })
        // The same through a relation (link order) and a nested list.
        try Chat(id: "c", users: .ids(many)).save(to: &context)
        #expect(Chat.query("c", in: context).related(\.$users).sorted(by: \.age).resolve().map(\.id) == sorted)
        let nested = Chat.query("c", in: context).with(\.$users) { $0.sorted(by: \.age) }.resolve()
        #expect(nested?.users?.map(\.id) == sorted)
    }

    // #7.7: a query made without a context resolves its relation in the context given later.
    @Test func relatedOfAContextlessQueryUsesTheResolveContext() throws {
        var context = Context()
        try Fixtures.readmeChat.save(to: &context)
        #expect(Chat.query("1").related(\.$users).resolve(in: context).map(\.id) == ["1", "2"])
        #expect(Message.query("1").related(\.$chat).resolve(in: context)?.id == "1")
        #expect(Chat.query("1").related(\.$users).sorted(by: \.name).resolve(in: context).map(\.name) == ["Alice", "Bob"])
    }

    // #7.8: a full-text index only narrows: a needle starting with a combining mark still matches.
    @Test func fullTextNarrowingKeepsMatchesAtCombiningMarks() throws {
        var context = Context()
        try Message(id: "1", text: "cafe\u{301}bar baz").withRequiredLinks().save(to: &context)
        for needle in ["\u{301}bar ", "\u{301}bar baz", "e\u{301}bar", "\u{200D}bar "] {
            let indexed = Message.filter(.string(\.text, contains: needle), in: context).resolve().map(\.id)
            let scanned = Message.query(in: context).resolve().filter {
                $0.text.lowercased().contains(needle.lowercased())
            }.map(\.id)
            #expect(indexed == scanned, "needle \(needle.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        #expect(Message.filter(.string(\.text, contains: "\u{301}bar "), in: context).count() == 1)
        // Canonically equivalent spellings: "≠" is "=" followed by a combining overlay.
        try Message(id: "2", text: "x a\u{2260}b y").withRequiredLinks().save(to: &context)
        try Message(id: "3", text: "x a=\u{338}b y").withRequiredLinks().save(to: &context)
        for needle in ["=\u{338}b y", "\u{2260}b y", " a\u{2260}b ", "\u{338}b y"] {
            for caseSensitive in [false, true] {
                let predicate = Predicate<Message>.string(\.text, contains: needle, caseSensitive: caseSensitive)
                let indexed = Message.filter(predicate, in: context).resolve().map(\.id)
                let scanned = Message.query(["1", "2", "3"], in: context).filter(predicate).resolve().map(\.id)
                #expect(indexed == scanned, "needle \(needle.unicodeScalars.map { String($0.value, radix: 16) })")
            }
        }
        #expect(Message.filter(.string(\.text, contains: "=\u{338}b y"), in: context).resolve().map(\.id) == ["2", "3"])
    }

    // #7.11: limits and offsets never overflow.
    @Test func hugeLimitsAndOffsetsDoNotTrap() throws {
        var context = Context()
        try Fixtures.readmeChat.save(to: &context)
        #expect(Message.query(in: context).limit(.max, offset: 1).resolve().map(\.id) == ["2"])
        #expect(Message.query(in: context).sorted(by: \.timestamp).limit(.max, offset: 1).count() == 1)
        #expect(Message.filter(\.timestamp >= 0, in: context).limit(.max, offset: .max).resolve().isEmpty)
        #expect(Message.filter(\.timestamp >= 0, in: context).sorted(by: \.text).limit(.max - 1, offset: 2).resolve().isEmpty)
        #expect(Chat.query("1", in: context).with(\.$messages) { $0.limit(.max, offset: 1) }.resolve()?.messages?.count == 1)
    }

    // #7.12: a copy made inside a transaction does not keep journaling after it ends.
    @Test func copyMadeInsideATransactionIsIndependentAfterwards() throws {
        var context = Context()
        var copy = Context()
        try context.transaction { context in
            try Fixtures.readmeChat.save(to: &context)
            copy = context
        }
        for index in 0..<50 { try Message(id: "m\(index)", text: "x").withRequiredLinks().save(to: &copy) }
        copy.compact()  // used to hit "compact() cannot run inside a transaction"
        #expect(copy.count(of: Message.self) == 52)
        #expect(!copy.isInTransaction)
        #expect(context.count(of: Message.self) == 2)
    }

    // #7.14: a failed save leaves nothing behind, including the ids it interned.
    @Test func failedSaveLeavesContextOrderUnchanged() throws {
        var failed = Context(), clean = Context()
        try User(id: "1", name: "A", email: "e").save(to: &failed)
        try User(id: "1", name: "A", email: "e").save(to: &clean)
        // Interns chat "x" (saved, then rolled back) and its member "m", then throws on the
        // email collision of the second entity of the batch.
        #expect(throws: UniqueConstraintViolation.self) {
            try failed.transaction { context in
                try Chat(id: "x", users: .ids(["m"])).save(to: &context)
                try User(id: "2", name: "B", email: "e").save(to: &context)
            }
        }
        #expect(failed.ids(of: Chat.self).isEmpty)
        func rest(_ context: inout Context) throws {
            try Chat(id: "y").save(to: &context)
            try Chat(id: "x").save(to: &context)
            try User(id: "n", name: "N").save(to: &context)
            try Chat(id: "z", users: .ids(["m"])).save(to: &context)
        }
        try rest(&failed)
        try rest(&clean)
        #expect(failed.ids(of: Chat.self) == clean.ids(of: Chat.self))
        #expect(failed.ids(of: Chat.self) == ["y", "x", "z"])
        #expect(Chat.query("z", in: failed).id(\.$users).resolve()?.$users == .ids([]))
        #expect(failed.ids(of: User.self) == clean.ids(of: User.self))
        #expect(failed.ids(of: User.self) == ["1", "n"])
    }

    // #7.15: compaction changes nothing observable, including where a re-saved id goes.
    @Test func compactionKeepsOrderOfResavedIds() throws {
        for compacting in [false, true] {
            var context = Context()
            try ["a", "b", "c"].map { User(id: $0, name: $0) }.save(to: &context)
            try User(id: "a", name: "a").delete(from: &context)
            if compacting { context.compact() }
            try User(id: "a", name: "a").save(to: &context)
            #expect(context.ids(of: User.self) == ["b", "c", "a"], "compacting: \(compacting)")
        }
        for compacting in [false, true] {
            var context = Context()
            // Restore relinks stored targets only, and the required ones must be there.
            try User(id: "someone", name: "S").save(to: &context)
            try Chat(id: "somewhere").save(to: &context)
            try ["a", "b", "c"].map { Message(id: $0, text: $0).withRequiredLinks() }.save(to: &context)
            let archived = try #require(Message(id: "a", text: "").asDeleted(in: context))
            try archived.save(to: &context)
            if compacting { context.compact() }
            try archived.restore(in: &context)
            #expect(context.ids(of: Message.self) == ["b", "c", "a"], "compacting: \(compacting)")
        }
    }

    // #7.16: restore relinks only targets that still exist.
    @Test func restoreDoesNotRelinkDeletedTargets() throws {
        var context = Context()
        try User(id: "u", name: "U").save(to: &context)
        try Chat(id: "c", messages: .relation([Message(id: "p", text: "parent", author: .id("u"))])).save(to: &context)
        try Message(id: "m", text: "hi", author: .id("u"), chat: .id("c"), replyTo: .id("p")).save(to: &context)
        let archived = try #require(Message(id: "m", text: "").asDeleted(in: context))
        try archived.save(to: &context)
        try Message(id: "p", text: "").delete(from: &context)
        try archived.restore(in: &context)
        try Message(id: "p", text: "again", author: .id("u"), chat: .id("c")).save(to: &context)
        #expect(Message.query("p", in: context).with(\.$replies).resolve()?.replies?.isEmpty == true)
        #expect(Message.query("m", in: context).id(\.$replyTo).id(\.$chat).resolve().map { [$0.$replyTo.id, $0.$chat.id] } == [nil, "c"])
    }

    // #8: a required link that restore cannot bring back makes restore throw, changing nothing.
    @Test func restoreWithoutARequiredTargetThrows() throws {
        var context = Context()
        try Chat(id: "c", messages: .relation([Message(id: "m", text: "hi", author: .id("u"))])).save(to: &context)
        let archived = try #require(Message(id: "m", text: "").asDeleted(in: context))
        try archived.save(to: &context)
        try Chat(id: "c").delete(from: &context)
        let before = try Snapshot(context)
        #expect(throws: RequiredRelationViolation.self) { try archived.restore(in: &context) }
        #expect(try Snapshot(context) == before)
        #expect(context.find(Deleted<Message>.self, id: "m") != nil)
        // Inside a write's transaction too, where required links are checked at its end:
        // the restore throws at once, and the write, which catches it, goes on and commits.
        try context.transaction { context in
            #expect(throws: RequiredRelationViolation.self) { try archived.restore(in: &context) }
            try User(id: "u2", name: "after").save(to: &context)
        }
        #expect(context.find(Message.self, id: "m") == nil)
        #expect(context.find(Deleted<Message>.self, id: "m") != nil)
        #expect(context.find(User.self, id: "u2") != nil)
    }
}
