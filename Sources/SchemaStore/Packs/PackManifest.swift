import Foundation

/// What `manifest.json` in a pack folder says about the pack.
///
/// ```json
/// {
///   "id" : "5B0B3F3C-6E0A-4C43-9A57-0D7C1E3A9A11",
///   "title" : "Starter components",
///   "version" : "1.2.0",
///   "schemaFingerprint" : "db14b359c4bfdc2d",
///   "description" : "Optional text"
/// }
/// ```
public struct PackManifest: Sendable, Hashable, Codable {
    /// The pack's identity: installing a pack with the id of an installed one updates it.
    public var id: UUID
    public var title: String
    public var version: PackVersion
    /// The `fingerprint` of the schema the pack's store was written with (set by
    /// ``Pack/create(at:manifest:schema:_:)``).
    public internal(set) var schemaFingerprint: String
    public var description: String?

    public init(id: UUID = UUID(), title: String, version: PackVersion, description: String? = nil) {
        self.id = id
        self.title = title
        self.version = version
        self.schemaFingerprint = ""
        self.description = description
    }

    /// Reads and checks a manifest file; every problem is a ``PackError/badManifest(path:reason:)``.
    static func read(_ url: URL) throws -> PackManifest {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw PackError.badManifest(path: url.path, reason: "cannot read it (\(error.localizedDescription))")
        }
        let manifest: PackManifest
        do {
            manifest = try JSONDecoder().decode(PackManifest.self, from: data)
        } catch let DecodingError.keyNotFound(key, _) {
            throw PackError.badManifest(path: url.path, reason: "\"\(key.stringValue)\" is missing")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context),
                let DecodingError.dataCorrupted(context) {
            let field = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw PackError.badManifest(path: url.path, reason: field.isEmpty ? "not a JSON object (\(context.debugDescription))"
                                                                            : "\"\(field)\": \(context.debugDescription)")
        } catch {
            throw PackError.badManifest(path: url.path, reason: "\(error)")
        }
        if manifest.title.trimmingCharacters(in: .whitespaces).isEmpty {
            throw PackError.badManifest(path: url.path, reason: "\"title\" is empty")
        }
        if manifest.schemaFingerprint.isEmpty {
            throw PackError.badManifest(path: url.path, reason: "\"schemaFingerprint\" is empty")
        }
        return manifest
    }

    func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(self).write(to: url, options: .atomic)
    }
}
