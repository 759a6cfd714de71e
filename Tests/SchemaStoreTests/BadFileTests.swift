import CatalogModels
import ChatModels
import Foundation
import SchemaRuntime
@testable import SchemaStore
import Testing

/// Every bad file gets a thrown ``StoreError`` naming it, and is left as it was.
@Suite struct BadFileTests {
    /// A seeded store file, then changed behind the store's back by `sql`, if given.
    private func storeFile(in folder: TemporaryFolder, changing sql: String? = nil) throws -> URL {
        let url = folder.file()
        let store = try Store(.file(url), schema: ChatModelsSchema.self)
        try store.write { try StoreTests.seed(&$0) }
        store.close()
        if let sql {
            let database = try SQLiteDatabase(path: url.path)
            defer { database.close() }
            try database.execute(sql)
        }
        return url
    }

    private func contents(_ url: URL) -> Data? { FileManager.default.contents(atPath: url.path) }

    @Test func aFileThatIsNotADatabase() throws {
        let folder = try TemporaryFolder()
        let url = folder.file()
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try garbage.write(to: url)
        #expect {
            try Store(.file(url), schema: ChatModelsSchema.self)
        } throws: { error in
            guard case .corrupt(let path, _) = error as? StoreError else { return false }
            return path == url.path && "\(error)".hasPrefix(url.path + ": ")
        }
        #expect(contents(url) == garbage)
    }

    @Test func aTruncatedFile() throws {
        let folder = try TemporaryFolder()
        let url = try storeFile(in: folder)
        // Enough rows that the file spans several pages, then cut it in half.
        let store = try Store(.file(url), schema: ChatModelsSchema.self)
        try store.write { context in
            for index in 0..<2000 {
                try Message(id: "x\(index)", text: String(repeating: "word ", count: 20), author: .id("u1"), chat: .id("c1")).save(to: &context)
            }
        }
        store.close()
        let whole = try #require(contents(url))
        let half = whole.prefix(whole.count / 2)
        try half.write(to: url)
        #expect {
            try Store(.file(url), schema: ChatModelsSchema.self)
        } throws: { error in
            guard case .corrupt(let path, _) = error as? StoreError else { return false }
            return path == url.path
        }
        #expect(contents(url) == half)
    }

    @Test func aFileOfAnotherSchema() throws {
        let folder = try TemporaryFolder()
        let url = folder.file()
        try Store(.file(url), schema: CatalogModelsSchema.self).close()
        let before = contents(url)
        #expect {
            try Store(.file(url), schema: ChatModelsSchema.self)
        } throws: { error in
            guard case .schemaMismatch(let path, let stored, let expected, _, _) = error as? StoreError else { return false }
            return path == url.path && stored == CatalogModelsSchema.fingerprint && expected == ChatModelsSchema.fingerprint
        }
        #expect(contents(url) == before)
    }

    @Test func aDatabaseThisProjectDidNotWrite() throws {
        let folder = try TemporaryFolder()
        let url = folder.file()
        do {
            let database = try SQLiteDatabase(path: url.path)
            try database.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)")
            database.close()
        }
        let before = contents(url)
        #expect {
            try Store(.file(url), schema: ChatModelsSchema.self)
        } throws: { error in
            guard case .notAStore(let path, let reason) = error as? StoreError else { return false }
            return path == url.path && reason.contains("notes")
        }
        // Not even switched to a write-ahead log: another app's file stays exactly as it was.
        #expect(contents(url) == before)
    }

    @Test func aFileFromANewerFormat() throws {
        let folder = try TemporaryFolder()
        let url = try storeFile(in: folder, changing: "UPDATE \"schemagen:meta\" SET value = '99' WHERE key = 'format'")
        #expect(throws: StoreError.newerFormat(path: url.path, format: 99, supported: SQLiteBackend.format)) {
            try Store(.file(url), schema: ChatModelsSchema.self)
        }
    }

    @Test func aFolderThatCannotHoldTheFile() throws {
        let folder = try TemporaryFolder()
        // A path under a regular file: no user, root included, can create it.
        let blocker = folder.file("blocker")
        try Data("x".utf8).write(to: blocker)
        let url = blocker.appendingPathComponent("store.sqlite")
        #expect {
            try Store(.file(url), schema: ChatModelsSchema.self)
        } throws: { error in
            guard case .cannotOpen(let path, _) = error as? StoreError else { return false }
            return path == url.path
        }
    }

    @Test(.enabled(if: getuid() != 0, "root ignores file permissions"))
    func aFolderWithoutWritePermission() throws {
        let folder = try TemporaryFolder()
        let locked = folder.file("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path) }
        let url = locked.appendingPathComponent("store.sqlite")
        #expect {
            try Store(.file(url), schema: ChatModelsSchema.self)
        } throws: { error in
            guard case .cannotOpen(let path, let reason) = error as? StoreError else { return false }
            return path == url.path && reason.contains("not writable")
        }
    }

    // Opening resident reads every row, so damage is reported at open; a store reading on
    // demand reads rows when queries need them (docs/Persistence.md, "Errors").
    @Test func aUniqueCollisionInTheFileIsReportedNotResolved() throws {
        let folder = try TemporaryFolder()
        let url = try storeFile(in: folder)
        do {
            // `username` is `unique(onCollision: upsert)`: applying that policy on load would
            // silently delete one of the two users.
            let database = try SQLiteDatabase(path: url.path)
            try database.execute("UPDATE \"User\" SET username = 'ada' WHERE id = 'u2'")
            database.close()
        }
        #expect {
            try Store(.file(url), schema: ChatModelsSchema.self, options: .init(residency: .resident))
        } throws: { error in
            guard case .unreadableRow(let path, let entity, let reason) = error as? StoreError else { return false }
            return path == url.path && entity == "User" && reason.contains("usernameUnique")
        }
    }

    @Test func anUnreadableRowNamesTheEntity() throws {
        let folder = try TemporaryFolder()
        let url = try storeFile(in: folder, changing: "UPDATE \"User\" SET status = 'sleeping' WHERE id = 'u1'")
        #expect {
            try Store(.file(url), schema: ChatModelsSchema.self, options: .init(residency: .resident))
        } throws: { error in
            guard case .unreadableRow(let path, let entity, let reason) = error as? StoreError else { return false }
            return path == url.path && entity == "User" && reason.contains("sleeping")
        }
    }

    /// Reading on demand, a damaged row is met by the query that reads it: inside
    /// `store.read`, that query's failure is thrown (the process goes on), while reads that
    /// do not touch the row answer, in the same store.
    @Test func onDemandAReadOfADamagedRowThrowsInsideARead() throws {
        let folder = try TemporaryFolder()
        let url = try storeFile(in: folder, changing: "UPDATE \"User\" SET status = 'sleeping' WHERE id = 'u1'")
        let store = try Store(.file(url), schema: ChatModelsSchema.self, options: .init(readOnly: true, residency: .onDemand))
        #expect(store.readsOnDemand)
        #expect {
            try store.read { context in User.query(in: context).resolve().map(\.id) }
        } throws: { error in
            guard case .unreadableRow(_, let entity, let reason) = error as? StoreError else { return false }
            return entity == "User" && reason.contains("sleeping")
        }
        // What `body` threw comes first; a read that fails nothing returns its answer.
        struct Mine: Error {}
        #expect(throws: Mine.self) { try store.read { _ in throw Mine() } }
        let chats = try store.read { context in Chat.query(in: context).count() }
        #expect(chats == Chat.query(in: store.context).count())
    }
}
