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
