import Foundation
@_spi(SchemaStore) import SchemaRuntime

/// The installed packs of a store, loaded: their union (`base`), under the user's data.
///
/// `base` is what every pack entity looks like unedited. The store's graph starts as a copy
/// of it (sharing its storage until written), with the user layer loaded over it
/// (``UserLayerLoader``); a write compares each pack entity it touches with `base` to decide
/// what the user store records (``ChangeWriter``).
struct PackLayers: Sendable {
    /// In installation order: the order their entities come in, after the user's own.
    let packs: [Pack]
    let base: Context

    /// Loads every pack's store, read-only, into one graph; each entity's source is its pack.
    static func load(_ packs: [Pack], layout: StoreLayout) throws -> PackLayers {
        var base = Context()
        for pack in packs {
            guard pack.manifest.schemaFingerprint == layout.fingerprint else {
                throw PackError.schemaMismatch(path: pack.url.path, pack: pack.manifest.schemaFingerprint, expected: layout.fingerprint)
            }
            let backend = try SQLiteBackend(path: pack.storeURL.path, durability: .normal, lockTimeout: 0.1, readOnly: true)
            defer { backend.close() }
            _ = try backend.open(layout, migrations: [], policy: .never)
            try GraphLoader(layout: layout, backend: backend).load(into: &base, source: .pack(pack.manifest.id))
        }
        return PackLayers(packs: packs, base: base)
    }

    /// The pack the entity with stored id `id` comes from, and its key in `base`; nil for an
    /// id no pack stores.
    func packEntity(_ entity: any AnyEntityPersister, id: StoredValue) -> (pack: UUID, key: Int32)? {
        guard let key = try? entity.key(of: id, in: base), entity.hasRow(key, in: base),
              case .pack(let pack) = entity.source(of: key, in: base) else { return nil }
        return (pack, key)
    }

    /// The stored ids a link slot of `owner` holds in `context`, in order.
    static func targetIDs(_ link: LinkLayout, of owner: Int32, in context: Context) -> [StoredValue] {
        context.targetKeys(link.owner, link.slot, of: owner).map { link.targetEntity.idValue($0, in: context) }
    }
}
