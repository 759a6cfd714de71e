import Foundation

/// Why a store could not be opened, or a write not committed. Every case that concerns a
/// file names it. After any of these, the file and the store's current graph are unchanged.
public enum StoreError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The file cannot be opened or created: a missing or read-only folder, no permission.
    case cannotOpen(path: String, reason: String)
    /// Another store (in this process or another) kept the file's write lock for longer than
    /// ``Store/Options/lockTimeout``: nothing was written; try again later.
    case locked(path: String)
    /// The file is not an SQLite database, or is damaged (truncated, overwritten); on a
    /// server, the database holds records the store cannot read.
    case corrupt(path: String, reason: String)
    /// The file is an SQLite database but not one this project wrote.
    case notAStore(path: String, reason: String)
    /// The file was written by a newer version of SchemaStore.
    case newerFormat(path: String, format: Int, supported: Int)
    /// The file was written with another schema (its fingerprint differs from the code's).
    case schemaMismatch(path: String, stored: String, expected: String, storedLayout: String, expectedLayout: String)
    /// The file was written with a schema this code cannot migrate from on its own: each
    /// problem names the entity and field, and how to resolve it (a default, or a
    /// ``Migration``). `plan` is the rest of the plan.
    case migrationNeeded(path: String, problems: [String], plan: String)
    /// The file needs a migration that the store's options do not allow (it would delete
    /// data under ``Store/MigrationPolicy/keepEverything``, migrations are off, or the store
    /// is opened read-only).
    case migrationRefused(path: String, reason: String, plan: String)
    /// A migration ran into data it cannot move (a to-many relation made to-one where an entity
    /// has several links, a migration closure that threw, nil for a required field). The file
    /// is unchanged.
    case migrationFailed(path: String, reason: String)
    /// The file was written by a newer version of the app's schema: writing with this code
    /// would drop what it does not know (`unknown`). Opening it read-only works when the part
    /// this code knows is intact.
    case newerSchema(path: String, unknown: [String])
    /// A registered ``Migration`` does not fit the schema (no such field, another type).
    case invalidMigration(reason: String)
    /// The store was opened read-only.
    case readOnly(path: String)
    /// A row cannot be read back as its entity (a value of the wrong type, bad JSON).
    case unreadableRow(path: String, entity: String, reason: String)
    /// The write saved an entity type that is not part of the store's schema.
    case unknownEntity(name: String)
    /// Any other database failure.
    case database(path: String, reason: String)
    /// Another store (a newer version of the app, in another process) migrated the file to
    /// another schema while this one had it open: this store keeps its last graph and
    /// refuses writes. Open the file again with the matching schema.
    case schemaChangedElsewhere(path: String)
    /// The store was closed.
    case closed
    /// `write` was called from inside a write's closure: change the context the closure
    /// was given instead (it is already the store's next graph).
    case nestedWrite

    public var description: String {
        switch self {
        case let .cannotOpen(path, reason): "\(path): cannot open the store: \(reason)"
        case let .locked(path):
            "\(path): another Store (in this process or another) kept the database busy for longer than the lock timeout (writing; on a server, also a snapshot a migration waits for); nothing was written. Try again, or raise Store.Options.lockTimeout"
        case let .corrupt(path, reason):
            // A server database's location is its URL (`ServerLocation`), never a file path.
            path.hasPrefix("postgres://")
                ? "\(path): the database holds records this version cannot read (damaged, or written otherwise): \(reason)"
                : "\(path): the file is not a readable database (damaged or not SQLite): \(reason)"
        case let .notAStore(path, reason): "\(path): not a SchemaGen store: \(reason)"
        case let .newerFormat(path, format, supported):
            "\(path): written in store format \(format) by a newer SchemaStore; this one reads format \(supported) and older"
        case let .schemaMismatch(path, stored, expected, storedLayout, expectedLayout):
            "\(path): written with another schema (fingerprint \(stored), the code's is \(expected)); "
                + "opening it would lose or misread data, so it was left untouched.\n"
                + "stored layout:\n\(storedLayout)\ncode's layout:\n\(expectedLayout)"
        case let .migrationNeeded(path, problems, plan):
            "\(path): written with an older schema, and some changes cannot be migrated on their own; the file was left untouched:\n"
                + problems.map { "  error: \($0)" }.joined(separator: "\n") + (plan.isEmpty ? "" : "\nthe rest of the plan:\n\(plan)")
        case let .migrationRefused(path, reason, plan):
            "\(path): needs a migration, not applied because \(reason); the file was left untouched. The plan:\n\(plan)"
        case let .migrationFailed(path, reason): "\(path): migration failed, the file was left untouched: \(reason)"
        case let .newerSchema(path, unknown):
            "\(path): written by a newer version of the schema; writing with this one would drop what it does not know ("
                + unknown.joined(separator: "; ") + "). Open it read-only (Store.Options(readOnly: true)), or update the app"
        case let .invalidMigration(reason): "invalid migration: \(reason)"
        case let .readOnly(path): "\(path): the store is open read-only"
        case let .unreadableRow(path, entity, reason): "\(path): a stored \(entity) cannot be read: \(reason)"
        case let .unknownEntity(name): "the write saved \(name), which is not an entity of the store's schema"
        case let .database(path, reason): "\(path): \(reason)"
        case let .schemaChangedElsewhere(path):
            "\(path): another Store migrated the file to another schema while this one had it open; this store keeps its last graph and takes no writes. Open the file again with the schema it now has"
        case .closed: "the store is closed"
        case .nestedWrite: "write was called inside a write's closure; change the context that closure was given instead"
        }
    }

    public var errorDescription: String? { description }
}
