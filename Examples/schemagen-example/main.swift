import CatalogModels
import ChatModels
import Foundation
import SchemaRuntime

// Every type used here is generated at build time from Schemas/Chat/*.schema (DSL) and
// Schemas/Catalog/Catalog.schema.json (JSON) by SchemaGenPlugin. The same code is in
// Generated/ for reading.

func section(_ title: String) { print("\n== \(title)") }

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
