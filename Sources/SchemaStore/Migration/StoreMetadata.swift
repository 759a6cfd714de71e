import Foundation
import SchemaRuntime

/// What a store file records about the schema it was written with.
struct StoreMetadata: Sendable {
    /// The store format (see ``SQLiteBackend/format``).
    var format: Int
    var fingerprint: String
    /// The schema's shape; missing in files written before shapes were recorded.
    var shape: SchemaShape?
    /// Every fingerprint the file has been migrated through, oldest first, ending with
    /// `fingerprint`: a code fingerprint found earlier in it means the file is newer than the code.
    var history: [String]

    private typealias Key = StoreMetadataKey

    /// Reads the recorded values; nil for a store without a recorded format.
    init?(_ values: [String: String]) throws {
        guard let format = values[Key.format].flatMap(Int.init) else { return nil }
        self.format = format
        fingerprint = values[Key.fingerprint] ?? ""
        shape = try values[Key.shape].map { try JSONDecoder().decode(SchemaShape.self, from: Data($0.utf8)) }
        history = try values[Key.history].map { try JSONDecoder().decode([String].self, from: Data($0.utf8)) } ?? [fingerprint]
    }

    /// What a database records, given its tables and (read only when it has the metadata
    /// table) the metadata table's rows; nil for an empty database. Throws for a database
    /// that is not a store, or whose recorded shape cannot be read.
    static func read(tables: Set<String>, values: () throws -> [String: String], path: String) throws -> StoreMetadata? {
        guard tables.contains(Key.table) else {
            guard tables.isEmpty else {
                throw StoreError.notAStore(path: path, reason: "it holds tables (\(tables.sorted().prefix(5).joined(separator: ", "))) but no schemagen:meta table")
            }
            return nil
        }
        do {
            guard let metadata = try StoreMetadata(try values()) else {
                throw StoreError.notAStore(path: path, reason: "its schemagen:meta table records no format")
            }
            return metadata
        } catch is DecodingError {
            throw StoreError.corrupt(path: path, reason: "its recorded schema shape cannot be read")
        }
    }

    /// The values to record for `layout`, after `history`.
    static func values(for layout: StoreLayout, format: Int, history: [String]) -> [(String, String)] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let shape = String(decoding: (try? encoder.encode(layout.shape)) ?? Data(), as: UTF8.self)
        let history = String(decoding: (try? encoder.encode(history)) ?? Data(), as: UTF8.self)
        return [(Key.format, "\(format)"), (Key.fingerprint, layout.fingerprint), (Key.layout, layout.description),
                (Key.shape, shape), (Key.history, history)]
    }
}
