import BenchModels
import Foundation
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// The floor for the first commit: the same tables and rows a store writes (entity rows and
/// link rows with positions), inserted by hand-written prepared statements in one
/// transaction, WAL journal, `synchronous = NORMAL`. No ORM, no change tracking.
///
/// `indexed`: the floor for a store read on demand, whose file also answers queries: the
/// same rows plus the schema's two ordered indexes as SQLite indexes and the message text in
/// an FTS5 index (contentless, as the store keeps no second copy of the text either), which
/// is what an app would write by hand to search it.
enum PlainSQLiteBaseline {
    static func insertAll(users: [User], chats: [Chat], at path: String, indexed: Bool = false) {
        var database: OpaquePointer?
        check(sqlite3_open(path, &database), database)
        defer { sqlite3_close(database) }
        execute(database, "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        execute(database, """
            CREATE TABLE "User" ("id" INTEGER NOT NULL PRIMARY KEY, "name" TEXT NOT NULL, "age" INTEGER NOT NULL);
            CREATE TABLE "Chat" ("id" INTEGER NOT NULL PRIMARY KEY, "title" TEXT NOT NULL);
            CREATE TABLE "Message" ("id" INTEGER NOT NULL PRIMARY KEY, "text" TEXT NOT NULL, "timestamp" INTEGER NOT NULL);
            CREATE TABLE "User.chats" (owner INTEGER NOT NULL, position INTEGER NOT NULL, target INTEGER NOT NULL, PRIMARY KEY (owner, target)) WITHOUT ROWID;
            CREATE UNIQUE INDEX "User.chats:order" ON "User.chats" (owner, position);
            CREATE TABLE "Chat.users" (owner INTEGER NOT NULL, position INTEGER NOT NULL, target INTEGER NOT NULL, PRIMARY KEY (owner, target)) WITHOUT ROWID;
            CREATE UNIQUE INDEX "Chat.users:order" ON "Chat.users" (owner, position);
            CREATE TABLE "Chat.messages" (owner INTEGER NOT NULL, position INTEGER NOT NULL, target INTEGER NOT NULL, PRIMARY KEY (owner, target)) WITHOUT ROWID;
            CREATE UNIQUE INDEX "Chat.messages:order" ON "Chat.messages" (owner, position);
            CREATE TABLE "Message.author" (owner INTEGER NOT NULL PRIMARY KEY, target INTEGER NOT NULL);
            """)
        if indexed {
            execute(database, """
                CREATE INDEX "User:age" ON "User" (age);
                CREATE INDEX "Message:timestamp" ON "Message" (timestamp);
                CREATE VIRTUAL TABLE "Message:text" USING fts5(text, content='');
                """)
        }
        execute(database, "BEGIN")
        let user = prepare(database, #"INSERT INTO "User" VALUES (?, ?, ?)"#)
        let chat = prepare(database, #"INSERT INTO "Chat" VALUES (?, ?)"#)
        let message = prepare(database, #"INSERT INTO "Message" VALUES (?, ?, ?)"#)
        let userChats = prepare(database, #"INSERT INTO "User.chats" VALUES (?, ?, ?)"#)
        let chatUsers = prepare(database, #"INSERT INTO "Chat.users" VALUES (?, ?, ?)"#)
        let chatMessages = prepare(database, #"INSERT INTO "Chat.messages" VALUES (?, ?, ?)"#)
        let author = prepare(database, #"INSERT INTO "Message.author" VALUES (?, ?)"#)
        let text = indexed ? prepare(database, #"INSERT INTO "Message:text" (rowid, text) VALUES (?, ?)"#) : nil
        defer { [user, chat, message, userChats, chatUsers, chatMessages, author, text].forEach { sqlite3_finalize($0) } }
        for entity in users {
            run(user, .integer(entity.id), .text(entity.name), .integer(entity.age))
        }
        var chatsOfUser: [Int: Int] = [:]
        for entity in chats {
            run(chat, .integer(entity.id), .text(entity.title))
            for (position, id) in (entity.$users.ids ?? []).enumerated() {
                run(chatUsers, .integer(entity.id), .integer(position), .integer(id))
                run(userChats, .integer(id), .integer(chatsOfUser[id, default: 0]), .integer(entity.id))
                chatsOfUser[id, default: 0] += 1
            }
            for (position, embedded) in (entity.messages ?? []).enumerated() {
                run(message, .integer(embedded.id), .text(embedded.text), .integer(embedded.timestamp))
                run(chatMessages, .integer(entity.id), .integer(position), .integer(embedded.id))
                run(author, .integer(embedded.id), .integer(embedded.$author.id ?? 0))
                if indexed { run(text, .integer(embedded.id), .text(embedded.text)) }
            }
        }
        execute(database, "COMMIT")
    }

    enum Value { case integer(Int), text(String) }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func run(_ statement: OpaquePointer?, _ values: Value...) {
        for (index, value) in values.enumerated() {
            switch value {
            case .integer(let integer): sqlite3_bind_int64(statement, Int32(index + 1), Int64(integer))
            case .text(let text): sqlite3_bind_text(statement, Int32(index + 1), text, -1, transient)
            }
        }
        guard sqlite3_step(statement) == SQLITE_DONE else { fatalError("insert failed") }
        sqlite3_reset(statement)
    }

    private static func prepare(_ database: OpaquePointer?, _ sql: String) -> OpaquePointer? {
        var statement: OpaquePointer?
        check(sqlite3_prepare_v2(database, sql, -1, &statement, nil), database)
        return statement
    }

    private static func execute(_ database: OpaquePointer?, _ sql: String) {
        check(sqlite3_exec(database, sql, nil, nil, nil), database)
    }

    private static func check(_ result: Int32, _ database: OpaquePointer?) {
        guard result == SQLITE_OK else { fatalError(String(cString: sqlite3_errmsg(database))) }
    }
}
