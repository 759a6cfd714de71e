import ChatModels
import Foundation
import SchemaRuntime
import SchemaStore
import Testing

/// A store over installed packs: the unified view, sources, overrides, tombstones, revert,
/// and packs installed and removed at runtime (docs/Packs.md).
@Suite struct PackUnifiedViewTests {
    let folder: TemporaryFolder
    let packs: (starter: Pack, extra: Pack)

    init() throws {
        folder = try TemporaryFolder()
        packs = try PackFixtures.makePacks(in: folder.url)
    }

    var packsDirectory: URL { folder.file("installed") }

    /// A user store over both packs, installed.
    func openStore() throws -> Store {
        let library = try PackLibrary(directory: packsDirectory, schema: ChatModelsSchema.self)
        if try library.installed.isEmpty {
            try library.install(from: packs.starter.url)
            try library.install(from: packs.extra.url)
        }
        return try Store(.file(folder.file()), schema: ChatModelsSchema.self, packs: packsDirectory)
    }

    func installedChecksums(_ store: Store) throws -> [[String: Data]] {
        try store.packs.map(PackFixtures.checksum)
    }

    @Test func readsSeeTheUnionWithSources() throws {
        let store = try openStore()
        try store.write { context in
            try User(id: "me", name: "Me", age: 33).save(to: &context)
            // A user message in a pack chat, by a pack user.
            try Message(id: "mine", text: "hello from me", timestamp: 100, author: .id("u3"), chat: .id("c0")).save(to: &context)
        }
        let context = store.context
        #expect(Set(context.ids(of: User.self)) == ["u0", "u1", "u2", "u3", "me"])
        #expect(context.source(of: User.self, id: "u0") == .pack(PackFixtures.starterID))
        #expect(context.source(of: User.self, id: "u3") == .pack(PackFixtures.extraID))
        #expect(context.source(of: User.self, id: "me") == .user)
        #expect(context.source(of: User.self, id: "nobody") == nil)
        // Source filters, on a scan, an index and full text.
        #expect(User.query().from(.user).resolve(in: context).map(\.id) == ["me"])
        #expect(Set(User.query().from(.pack(PackFixtures.starterID)).resolve(in: context).map(\.id)) == ["u0", "u1", "u2"])
        #expect(Set(User.query().from(.user, .pack(PackFixtures.extraID)).resolve(in: context).map(\.id)) == ["me", "u3"])
        #expect(User.query().from(.user).from(.pack(PackFixtures.extraID)).resolve(in: context).isEmpty)
        #expect(User.query().sorted(by: \.age).from(.pack(PackFixtures.starterID)).limit(2).resolve(in: context).map(\.id) == ["u0", "u1"])
        #expect(User.query().filter(\.age >= 30).from(.user).resolve(in: context).map(\.id) == ["me"])
        #expect(Set(Message.query().filter(.string(\.text, matches: "hello")).resolve(in: context).map(\.id)) == ["m0", "m1", "m2", "m3", "m4", "mine"])
        #expect(Message.query().filter(.string(\.text, matches: "hello")).from(.user).resolve(in: context).map(\.id) == ["mine"])
        #expect(User.query().from(.pack(UUID())).count(in: context) == 0)
        // Relations across sources: a pack chat lists the user's message; a pack message's
        // author from the other pack.
        let chat = try #require(Chat.query("c0").with(\.$messages).resolve(in: context))
        #expect(chat.messages?.map(\.id) == ["m0", "m1", "m2", "m3", "m4", "mine"])
        #expect(Message.query("m5").with(\.$author).resolve(in: context)?.author?.name == "starter 0")
        #expect(Chat.query("c0").related(\.$messages).from(.user).resolve(in: context).map(\.id) == ["mine"])
    }

    @Test func editsOfPackEntitiesAreOverridesAndTombstonesThatSurviveReopening() throws {
        var store = try openStore()
        let checksums = try installedChecksums(store)
        try store.write { context in
            var user = try #require(context.find(User.self, id: "u1"))
            user.name = "renamed by the user"
            try user.save(to: &context)
            try context.find(Message.self, id: "m2")!.delete(from: &context)
            try Message(id: "mine", text: "new", author: .id("u0"), chat: .id("c1")).save(to: &context)
        }
        func check(_ store: Store, _ label: Comment) throws {
            let context = store.context
            #expect(context.find(User.self, id: "u1")?.name == "renamed by the user", label)
            #expect(context.source(of: User.self, id: "u1") == .pack(PackFixtures.starterID), label)
            #expect(context.find(Message.self, id: "m2") == nil, label)
            #expect(Chat.query("c0").related(\.$messages).resolve(in: context).map(\.id) == ["m0", "m1", "m3", "m4"], label)
            #expect(Chat.query("c1").related(\.$messages).resolve(in: context).map(\.id) == ["m5", "m6", "m7", "m8", "m9", "mine"], label)
            let users = store.edits(of: User.self, inPack: PackFixtures.starterID)
            #expect(users.edited == ["u1"] && users.deleted.isEmpty, label)
            let messages = store.edits(of: Message.self, inPack: PackFixtures.starterID)
            #expect(messages.edited.isEmpty && messages.deleted == ["m2"], label)
            // The chats whose message lists changed are edited too.
            #expect(store.edits(of: Chat.self, inPack: PackFixtures.starterID).edited == ["c0"], label)
            #expect(store.edits(of: Chat.self, inPack: PackFixtures.extraID).edited == ["c1"], label)
        }
        try check(store, "after the write")
        store.close()
        store = try openStore()
        try check(store, "reopened")
        #expect(try installedChecksums(store) == checksums, "a pack file changed")

        // Reverting: the user, then everything of the starter pack.
        try store.revertToPack(User.self, id: "u1")
        #expect(store.context.find(User.self, id: "u1")?.name == "starter 1")
        #expect(store.edits(of: User.self, inPack: PackFixtures.starterID).isEmpty)
        try store.revertAll(inPack: PackFixtures.starterID)
        #expect(store.context.find(Message.self, id: "m2")?.text == "hello starter 2")
        #expect(Chat.query("c0").related(\.$messages).resolve(in: store.context).map(\.id) == ["m0", "m1", "m2", "m3", "m4"])
        for type in [Chat.self] as [Chat.Type] { #expect(store.edits(of: type, inPack: PackFixtures.starterID).isEmpty) }
        #expect(store.edits(of: Message.self, inPack: PackFixtures.starterID).isEmpty)
        // The user's message in the extra pack's chat is untouched.
        #expect(store.context.find(Message.self, id: "mine") != nil)
        store.close()
        store = try openStore()
        #expect(store.context.find(User.self, id: "u1")?.name == "starter 1")
        #expect(store.context.find(Message.self, id: "m2") != nil)
        #expect(store.edits(of: Message.self, inPack: PackFixtures.starterID).isEmpty)
        #expect(try installedChecksums(store) == checksums, "a pack file changed")
        #expect(throws: PackError.notAPackEntity(entity: "Message", id: "mine")) { try store.revertToPack(Message.self, id: "mine") }
    }

    @Test func savingAPackEntityBackAsThePackHasItLeavesNoOverride() throws {
        let store = try openStore()
        let original = try #require(store.context.find(User.self, id: "u2"))
        try store.write { context in
            var user = original
            user.age = 99
            try user.save(to: &context)
        }
        #expect(store.edits(of: User.self, inPack: PackFixtures.starterID).edited == ["u2"])
        try store.write { try original.save(to: &$0) }
        #expect(store.edits(of: User.self, inPack: PackFixtures.starterID).isEmpty)
    }

    @Test(arguments: [Store.Residency.resident, .onDemand])
    func installingAndRemovingAtRuntimeIsOneObservedChange(residency: Store.Residency) async throws {
        let store = try Store(.file(folder.file()), schema: ChatModelsSchema.self, packs: packsDirectory, options: .init(residency: residency))
        #expect(store.readsOnDemand == (residency == .onDemand))
        try await store.write { context in
            try User(id: "me", name: "Me").save(to: &context)
            // A user message in a chat the starter pack will provide.
            try Message(id: "mine", text: "early", author: .id("me"), chat: .id("c0")).save(to: &context)
        }
        var changes = store.changes().makeAsyncIterator()
        let snapshotBefore = store.context
        #expect(try store.installPack(from: packs.starter.url) == .installed)
        let installed = try #require(await changes.next())
        #expect(installed.changes(User.self)?.inserted.sorted() == ["u0", "u1", "u2"])
        #expect(installed.changes(Message.self)?.inserted.count == 5)
        #expect(snapshotBefore.count(of: User.self) == 1, "a snapshot taken before changed")
        #expect(store.packs.map(\.manifest.id) == [PackFixtures.starterID])
        // The user's message now shows in the pack's chat.
        #expect(Chat.query("c0").related(\.$messages).resolve(in: store.context).map(\.id).contains("mine"))

        // Edit, then update the pack to a version without u2: the edit of u2 goes with it.
        try await store.write { context in
            var user = try #require(context.find(User.self, id: "u2"))
            user.name = "edited"
            try user.save(to: &context)
        }
        #expect(await changes.next()?.changes(User.self)?.updated == ["u2"])
        let v2 = try Pack.create(at: folder.file("starter-v2.pack"),
                                 manifest: PackManifest(id: PackFixtures.starterID, title: "Starter", version: "2.0"),
                                 schema: ChatModelsSchema.self) { context in
            try User(id: "u0", name: "starter zero v2").save(to: &context)
        }
        #expect(try store.installPack(from: v2.url) == .updated(from: "1.0"))
        let updated = try #require(await changes.next())
        #expect(updated.changes(User.self)?.deleted.sorted() == ["u1", "u2"])
        #expect(updated.changes(User.self)?.updated == ["u0"])
        #expect(store.context.find(User.self, id: "u2") == nil)
        #expect(throws: PackError.newerVersionInstalled(id: PackFixtures.starterID, installed: "2.0", offered: "1.0")) {
            try store.installPack(from: packs.starter.url)
        }

        // Removing: pack entities go, the user's stay, with their links to the pack's ids.
        try store.removePack(id: PackFixtures.starterID)
        let removed = try #require(await changes.next())
        #expect(removed.changes(User.self)?.deleted == ["u0"])
        #expect(store.packs.isEmpty)
        #expect(Set(store.context.ids(of: User.self)) == ["me"])
        #expect(store.context.find(Message.self, id: "mine") != nil)
        // Reinstalling the old version starts clean: no edit of u2 comes back.
        try store.installPack(from: packs.starter.url)
        #expect(store.context.find(User.self, id: "u2")?.name == "starter 2")
        #expect(throws: PackError.notInstalled(id: PackFixtures.extraID)) { try store.removePack(id: PackFixtures.extraID) }
    }

    @Test(arguments: [Store.Residency.resident, .onDemand])
    func idCollisionsWithTheUserStoreAreRefusedAndChangeNothing(residency: Store.Residency) throws {
        let store = try Store(.file(folder.file()), schema: ChatModelsSchema.self, packs: packsDirectory, options: .init(residency: residency))
        #expect(store.readsOnDemand == (residency == .onDemand))
        try store.write { try User(id: "u1", name: "mine, not the pack's").save(to: &$0) }
        let before = try StoreSnapshot(store.context)
        #expect(throws: PackError.idCollision(pack: PackFixtures.starterID, with: "the user store", ids: ["User": ["u1"]])) {
            try store.installPack(from: packs.starter.url)
        }
        #expect(try StoreSnapshot(store.context) == before)
        #expect(store.packs.isEmpty)
        #expect(try PackLibrary(directory: packsDirectory, schema: ChatModelsSchema.self).installed.isEmpty)
        // Without the colliding user entity the pack installs; editing its u1 then is an override.
        try store.write { try User(id: "u1", name: "").delete(from: &$0) }
        try store.installPack(from: packs.starter.url)
        #expect(store.context.source(of: User.self, id: "u1") == .pack(PackFixtures.starterID))
    }

    @Test(arguments: [Store.Residency.resident, .onDemand])
    func aUniqueIndexCollisionWithThePackFailsTheInstallAndChangesNothing(residency: Store.Residency) throws {
        let store = try Store(.file(folder.file()), schema: ChatModelsSchema.self, packs: packsDirectory, options: .init(residency: residency))
        #expect(store.readsOnDemand == (residency == .onDemand))
        try store.write { try User(id: "me", name: "Me", email: "team@example.com").save(to: &$0) }
        let pack = try Pack.create(at: folder.file("emails.pack"), manifest: PackManifest(title: "Emails", version: "1"),
                                   schema: ChatModelsSchema.self) { context in
            try User(id: "team", name: "Team", email: "team@example.com").save(to: &context)
        }
        let before = try StoreSnapshot(store.context)
        // #27: an install failure that names both entities and the index.
        var failure: PackError?
        #expect {
            try store.installPack(from: pack.url)
        } throws: { error in
            failure = error as? PackError
            guard case .uniqueCollision(pack.manifest.id, "User", let index, "team", "the user store", "me")? = failure else { return false }
            return index.contains("email")
        }
        #expect(failure?.description.hasPrefix("cannot install pack \(pack.manifest.id): its User 'team' and User 'me' of the user store have the same key in unique index") == true)
        #expect(try StoreSnapshot(store.context) == before)
        #expect(store.packs.isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: packsDirectory.path).filter { $0.hasSuffix(".pack") }.isEmpty)

        // Between two packs: the one installed first is named.
        try store.write { try User(id: "me", name: "Me").delete(from: &$0) }
        try store.installPack(from: pack.url)
        let second = try Pack.create(at: folder.file("emails2.pack"), manifest: PackManifest(title: "More emails", version: "1"),
                                     schema: ChatModelsSchema.self) { context in
            try User(id: "desk", name: "Desk", email: "team@example.com").save(to: &context)
        }
        #expect {
            try store.installPack(from: second.url)
        } throws: { error in
            guard case .uniqueCollision(second.manifest.id, "User", _, "desk", let other, "team")? = error as? PackError else { return false }
            return other == "pack \(pack.manifest.id) (Emails)"
        }
        #expect(store.packs.map(\.manifest.id) == [pack.manifest.id])
    }

    @Test func storesWithoutPacksRefusePackOperations() throws {
        let store = try Store(.memory, schema: ChatModelsSchema.self)
        #expect(throws: PackError.noPacks) { try store.installPack(from: packs.starter.url) }
        #expect(throws: PackError.noPacks) { try store.revertToPack(User.self, id: "u0") }
        #expect(store.packs.isEmpty)
    }
}
