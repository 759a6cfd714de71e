import CatalogModels
import ChatModels
import Foundation
import SchemaRuntime
import SchemaStore

// Every type used here is generated at build time from Schemas/Chat/*.schema (DSL) and
// Schemas/Catalog/Catalog.schema.json (JSON) by SchemaGenPlugin. The same code is in
// Generated/ for reading.

func section(_ title: String) { print("\n== \(title)") }

// `schemagen-example --widget <store>`: the second process of "Two processes, one file"
// below (as an app's widget would be): opens the store read-only and on demand beside the
// app's writer (SQL answers its queries; it loads no graph), and observes it until a commit
// inserts message m3 (the app's commits reach it from the file's commit log).
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "--widget" {
    let shared = try Store(.file(URL(fileURLWithPath: CommandLine.arguments[2])), schema: ChatModelsSchema.self,
                           options: .init(readOnly: true, residency: .onDemand))
    print("  widget (another process) opened it on demand: \(Message.query(in: shared.context).count()) messages")
    fflush(nil)   // both processes print to one terminal: keep the lines in order
    // Observing first, then looking: a commit in between is in both, never in neither.
    let commits = shared.changes(to: Message.self)
    var seen = Message.query("m3", in: shared.context).resolve() != nil ? shared.context : nil
    if seen == nil {
        for await changes in commits where changes.changes(Message.self)?.inserted.contains("m3") == true {
            print("  widget observed commit \(changes.commit): \(changes.changes(Message.self)!.inserted) inserted")
            seen = changes.context
            break
        }
    }
    guard let seen else { exit(1) }
    // Each context is a snapshot of the file: this one is the file as the commit left it.
    let newest = Chat.query("general", in: seen).related(\.$messages).sorted(by: \.timestamp.desc).limit(3).with(\.$author).resolve()
    print("  widget saw the commit: \(newest.map { "\($0.author?.name ?? "?"): \($0.text)" })")
    print("  widget read it through SQL: \(shared.readsOnDemand), \(shared.onDemandStatistics.wholeGraphReads) whole-graph reads")
    fflush(nil)
    exit(0)
}

// Saving: embedded entities are normalized, ids link, both sides of mutual relations are kept.
var context = Context()
let chat = Chat(
    id: "1",
    users: .relation([User(id: "1", name: "Bob", age: 31), User(id: "2", name: "Alice", age: 28)]),
    messages: .relation([
        Message(id: "1", text: "Any thoughts on SchemaGen?", timestamp: 1, author: .id("1")),
        Message(id: "2", text: "Schema files instead of macros: fast builds.", timestamp: 2, author: .id("2")),
    ]),
    admins: .ids(["1"])
)
try chat.save(to: &context)
try Message(id: "3", text: "Agreed, and the generated code is readable.", timestamp: 3, author: .id("1"), chat: .id("1"), replyTo: .id("2"))
    .save(to: &context)

section("Nested query from the other end")
let bob = User.query("1", in: context)
    .with(\.$chats) { $0.with(\.$messages) { $0.with(\.$author).id(\.$replyTo) }.id(\.$admins) }
    .resolve()
let encoder = JSONEncoder.prettyPrinting
encoder.relationEncodingStrategy = .plain
print(bob?.prettyDescription(with: encoder) ?? "not found")

section("Filters, sorts and indexes")
let adults = User.filter(\.age > 30, in: context)
print("older than 30:", adults.resolve().map(\.name), "-", adults.explain())
let latest = Message.query(in: context).sorted(by: \.timestamp.desc).limit(2)
print("latest two:", latest.resolve().map(\.id), "-", latest.explain())
let search = Message.filter(.string(\.text, matches: "schema"), in: context)
print("full-text 'schema':", search.resolve().map(\.id), "-", search.explain())

section("Aggregates, groups, relation filters, pages, ordered lists")
let perAuthor = Message.query(in: context).group(by: \.$author).sortedByAggregate(descending: true).count()
print("messages per author:", perAuthor.map { "\($0.key ?? "-"): \($0.value)" })
print("id@timestamp:", Message.query(in: context).sorted(by: \.timestamp).select(\.id, \.timestamp).map { "\($0.0)@\($0.1)" })
let chatsWithReplies = Chat.filter(.any(\.$messages, where: .related(\.$replyTo)), in: context)
print("chats with a reply:", chatsWithReplies.resolve().map(\.id), "-", chatsWithReplies.explain())
let firstPage = Message.query(in: context).sorted(by: \.timestamp.desc).page(size: 2)
print("page 1:", firstPage.entities.map(\.id), "page 2:",
      firstPage.next.map { Message.query(in: context).sorted(by: \.timestamp.desc).page(size: 2, after: $0).entities.map(\.id) } ?? [])
try chat.move(\.$messages, from: 2, to: 0, in: &context)
print("after moving the last message first:", Chat.query("1", in: context).with(\.$messages).resolve()?.messages?.map(\.id) ?? [])

section("Unique index collisions")
try User(id: "3", name: "Carol", email: "carol@example.com").save(to: &context)
do {
    try User(id: "4", name: "Impostor", email: "carol@example.com").save(to: &context)
} catch let error as UniqueConstraintViolation {
    print("rejected:", error, "- users still:", context.count(of: User.self))
}

section("Rollback: a failing save leaves the context unchanged")
var catalog = Context()
let kettle = Product(id: UUID(), sku: "K-1", title: "Kettle", price: 39.90)
try kettle.save(to: &catalog)
var reviewed = kettle
reviewed.$reviews = .relation([
    Review(id: UUID(), rating: 5, body: "Boils fast", createdAt: Date()),
    Review(id: UUID(), rating: 11, body: "Out of range", createdAt: Date()),
])
do {
    try reviewed.save(to: &catalog)
} catch {
    print("save failed with \(error); reviews stored: \(catalog.count(of: Review.self))")
}
print("price:", catalog.find(Product.self, id: kettle.id)!.formattedPrice)

/// In an async function, `await store.write` is the async write: it waits for other writers
/// without blocking a thread.
func persistence() async throws {
    section("Persistence: write, close, reopen (SchemaStore)")
    // A store file in a temporary folder; `Store(.memory, ...)` keeps nothing, for tests and previews.
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("schemagen-example-\(ProcessInfo.processInfo.processIdentifier)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let storeURL = folder.appendingPathComponent("chat.sqlite")
    do {
        let store = try Store(.file(storeURL), schema: ChatModelsSchema.self)
        // One transaction: committed to the file when the closure returns, or not at all.
        // (Outside async code, the same call without `await` blocks until it is committed.)
        try await store.write { context in
            try Chat(id: "general", title: "General",
                     users: .relation([User(id: "1", name: "Alice"), User(id: "2", name: "Bob")]),
                     messages: .relation([Message(id: "m1", text: "Persisted with SchemaStore", author: .id("1"))])).save(to: &context)
        }
        let snapshot = store.context   // an O(1) snapshot that later writes never change
        try await store.write { context in
            try Message(id: "m2", text: "Written from a task", author: .id("2"), chat: .id("general")).save(to: &context)
        }
        print("snapshot sees \(snapshot.count(of: Message.self)) message(s), the store \(store.context.count(of: Message.self))")
        store.close()
    }
    // On demand: opening reads no rows and creates the SQL indexes on-demand readers use.
    let reopened = try Store(.file(storeURL), schema: ChatModelsSchema.self, options: .init(residency: .onDemand))
    let general = Chat.query("general", in: reopened.context).with(\.$messages) { $0.with(\.$author) }.resolve()
    print("after reopening:", general?.messages?.map { "\($0.author?.name ?? "?"): \($0.text)" } ?? [])

    section("Two processes, one file: an app writing, a widget reading on demand")
    // The follower is this program again (`--widget`), in a process of its own.
    let widget = Process()
    widget.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
    widget.arguments = ["--widget", storeURL.path]
    fflush(nil)
    try widget.run()
    // Give it a moment to open the file (it reads what is there when it opens).
    try await Task.sleep(nanoseconds: 500_000_000)
    print("  app commits m3")
    fflush(nil)
    try await reopened.write { context in
        try Message(id: "m3", text: "Seen by the widget", timestamp: 3, author: .id("1"), chat: .id("general")).save(to: &context)
    }
    widget.waitUntilExit()
    reopened.close()
}

try await persistence()

/// Content packs: read-only content installed under the user's store, shown merged with the
/// user's data; the user's edits never touch the pack.
func contentPacks() throws {
    section("Content packs: install, merge, override, revert")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("schemagen-packs-\(ProcessInfo.processInfo.processIdentifier)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    // A pack as an app would ship or download it.
    let starter = try Pack.create(at: folder.appendingPathComponent("Starter.pack"),
                                  manifest: PackManifest(title: "Starter chat", version: "1.0"), schema: ChatModelsSchema.self) { context in
        try Chat(id: "welcome", title: "Welcome",
                 messages: .relation([Message(id: "w1", text: "Welcome to the app", author: .relation(User(id: "team", name: "The team")))]))
            .save(to: &context)
    }
    let store = try Store(.file(folder.appendingPathComponent("user.sqlite")), schema: ChatModelsSchema.self,
                          packs: folder.appendingPathComponent("Packs"))
    try store.installPack(from: starter.url)
    print("  the user's store reads the union on demand (SQL over the user's file and the pack's):", store.readsOnDemand)
    try store.write { context in
        // The user's own message in the pack's chat, and an edit of the pack's message.
        try Message(id: "u1", text: "Thanks!", author: .relation(User(id: "me", name: "Me")), chat: .id("welcome")).save(to: &context)
        var welcome = context.find(Message.self, id: "w1")!
        welcome.text = "Welcome (my notes: read the docs)"
        try welcome.save(to: &context)
    }
    let messages = Chat.query("welcome", in: store.context).related(\.$messages)
    for message in messages.resolve() {
        switch store.context.source(of: Message.self, id: message.id)! {
        case .user: print("  user: \(message.text)")
        case .pack(let id): print("  pack \"\(store.packs.first { $0.manifest.id == id }!.manifest.title)\": \(message.text)")
        }
    }
    print("only the user's:", messages.from(.user).resolve().map(\.text))
    print("edited in the pack:", store.edits(of: Message.self, inPack: starter.manifest.id).edited)
    try store.revertToPack(Message.self, id: "w1")
    print("reverted:", store.context.find(Message.self, id: "w1")!.text)
    store.close()
}

try contentPacks()
