/// The fingerprint of what a store keeps of a schema: entities, fields with their types, and
/// relations with their targets and pairings. Indexes, merge rules, defaults and comments
/// do not change it, so editing them never makes an existing store file unreadable.
///
/// 64-bit FNV-1a over a canonical text of the layout, as 16 hex digits: it detects changes,
/// it is not a cryptographic hash.
enum SchemaFingerprint {
    static func of(_ entities: [EntityModel]) -> String {
        hash(canonicalText(entities))
    }

    /// One line per entity, fields and relations in schema order, entities by name.
    static func canonicalText(_ entities: [EntityModel]) -> String {
        entities.sorted { $0.name < $1.name }.map { entity in
            let fields = entity.fields.map { "\($0.name): \($0.type)" }
            let relations = entity.relations.map { relation in
                "\(relation.name) -> \(relation.isToMany ? "[\(relation.target)]" : relation.target)\(relation.inverse.map { " inverse \($0.name)" } ?? "")"
            }
            let metadata = entity.tracksUpdatedAt ? " updatedAt" : ""
            return "entity \(entity.name)(\(fields.joined(separator: ", ")); \(relations.joined(separator: ", ")))\(metadata)"
        }.joined(separator: "\n")
    }

    static func hash(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
