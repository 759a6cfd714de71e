import BenchModels
import Foundation
import SchemaRuntime
import SchemaStore
#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// Section 10 of the store benchmark: opening a file whose messages table a migration must
/// rewrite, in the two ways a migration copies rows, alternated `rounds` times:
/// - in SQL: the file recorded one more `Message` field (`legacy: String?`) than the code
///   has, so the table is rebuilt without it by one `INSERT INTO ... SELECT`;
/// - through Swift: the file recorded `timestamp` as `Int?` and a `Migration` closure computes
///   the required `Int`, so every row passes through the closure;
/// beside opening an unchanged copy (loading the graph, which both migrations also do).
enum MigrationBenchmark {
    static func run(store: URL, folder: URL, rounds: Int, milliseconds: (() throws -> Void) throws -> Double) throws -> [String: [Double]] {
        var times: [String: [Double]] = [:]
        let timestamp = Migration.field("timestamp", of: Message.self) { row in try row.value("timestamp", as: Int?.self) ?? 0 }
        for round in 0..<rounds {
            for variant in ["unchanged", "in SQL", "through Swift"] {
                let copy = folder.appendingPathComponent("migrating-\(round)-\(variant.replacingOccurrences(of: " ", with: "-")).sqlite")
                try FileManager.default.copyItem(at: store, to: copy)
                defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: copy.path + suffix) } }
                switch variant {
                case "in SQL":
                    try rewind(copy, sql: #"ALTER TABLE "Message" ADD COLUMN "legacy" TEXT"#) { fields in
                        fields.append(FieldShape("legacy", "String?", column: .text))
                    }
                case "through Swift":
                    try rewind(copy, sql: nil) { fields in
                        if let index = fields.firstIndex(where: { $0.name == "timestamp" }) { fields[index].type = "Int?" }
                    }
                default: break
                }
                times[variant, default: []].append(try milliseconds {
                    let opened = try Store(.file(copy), schema: BenchModelsSchema.self, migrations: variant == "through Swift" ? [timestamp] : [],
                                                   options: .init(residency: .resident))
                    precondition((opened.appliedMigration != nil) == (variant != "unchanged"))
                    opened.close()
                })
            }
        }
        return times
    }

    /// Makes the file at `url` look written by an older schema: runs `sql`, and records a
    /// shape whose `Message` fields `change` edited, under another fingerprint.
    private static func rewind(_ url: URL, sql: String?, _ change: (inout [FieldShape]) -> Void) throws {
        var shape = BenchModelsSchema.shape
        guard let index = shape.entities.firstIndex(where: { $0.name == "Message" }) else { return }
        change(&shape.entities[index].fields)
        let json = String(decoding: try JSONEncoder().encode(shape), as: UTF8.self)
        var database: OpaquePointer?
        guard sqlite3_open(url.path, &database) == SQLITE_OK else { throw CocoaError(.fileReadUnknown) }
        defer { sqlite3_close(database) }
        var statements = ["UPDATE \"schemagen:meta\" SET value = 'bench-old' WHERE key = 'fingerprint'",
                          "UPDATE \"schemagen:meta\" SET value = '[\"bench-old\"]' WHERE key = 'history'"]
        if let sql { statements.append(sql) }
        for statement in statements where sqlite3_exec(database, statement, nil, nil, nil) != SQLITE_OK {
            throw CocoaError(.fileWriteUnknown)
        }
        var update: OpaquePointer?
        guard sqlite3_prepare_v2(database, "UPDATE \"schemagen:meta\" SET value = ? WHERE key = 'shape'", -1, &update, nil) == SQLITE_OK else {
            throw CocoaError(.fileWriteUnknown)
        }
        defer { sqlite3_finalize(update) }
        sqlite3_bind_text(update, 1, json, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        guard sqlite3_step(update) == SQLITE_DONE else { throw CocoaError(.fileWriteUnknown) }
    }
}
