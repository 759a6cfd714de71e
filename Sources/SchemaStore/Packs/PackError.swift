import Foundation

/// Why a pack could not be created, opened, installed or removed. Nothing is changed when
/// one is thrown: the packs directory and the installed packs stay as they were.
public enum PackError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `manifest.json` is missing, unreadable, or lacks a field.
    case badManifest(path: String, reason: String)
    /// The folder has a manifest but no store file.
    case missingStoreFile(path: String)
    /// The pack was written with another schema than the one it is opened with.
    case schemaMismatch(path: String, pack: String, expected: String)
    /// Creating a pack where a file or folder already is.
    case alreadyExists(path: String)
    /// An installed pack with the same id has a higher version; install with `force` to replace it.
    case newerVersionInstalled(id: UUID, installed: PackVersion, offered: PackVersion)
    /// Ids the pack shares with the user store or another installed pack, per entity type.
    case idCollision(pack: UUID, with: String, ids: [String: [String]])
    /// Installing the pack would put two entities on one key of a unique index: `packEntity`
    /// of the pack being installed, and `otherEntity` of `other` ("the user store", or
    /// another pack). The install is refused and nothing changes: change or delete one of
    /// them (the user's, or the pack's in a new version of the pack), then install again.
    case uniqueCollision(pack: UUID, entity: String, index: String, packEntity: String, other: String, otherEntity: String)
    /// No installed pack has this id.
    case notInstalled(id: UUID)
    /// A pack operation on a store opened without a packs directory.
    case noPacks
    /// Reverting an entity no installed pack provides.
    case notAPackEntity(entity: String, id: String)
    /// A store reading on demand shows its packs through SQLite, which attaches at most
    /// `limit` files to a connection; `count` packs would be installed.
    case tooManyPacksOnDemand(count: Int, limit: Int)

    public var description: String {
        switch self {
        case let .badManifest(path, reason): "\(path): bad pack manifest: \(reason)"
        case let .missingStoreFile(path): "\(path): the pack has no store file (\(Pack.storeFileName))"
        case let .schemaMismatch(path, pack, expected):
            "\(path): the pack was written with schema \(pack), this code's schema is \(expected); regenerate the pack or open it with its schema"
        case let .alreadyExists(path): "\(path): already exists"
        case let .newerVersionInstalled(id, installed, offered):
            "pack \(id): version \(installed) is installed, newer than \(offered); install with force: true to replace it"
        case let .idCollision(pack, other, ids):
            "pack \(pack) has ids that \(other) also has: " + ids.keys.sorted().map { "\($0) \(ids[$0]!.joined(separator: ", "))" }.joined(separator: "; ")
        case let .uniqueCollision(pack, entity, index, packEntity, other, otherEntity):
            "cannot install pack \(pack): its \(entity) '\(packEntity)' and \(entity) '\(otherEntity)' of \(other) have the same key "
                + "in unique index '\(index)'; nothing was installed. Change or delete one of them (the pack's in a new version of the pack), then install again"
        case let .notInstalled(id): "no installed pack has id \(id)"
        case .noPacks: "the store was opened without a packs directory: open it with Store(_:schema:packs:)"
        case let .notAPackEntity(entity, id): "\(entity) \(id) does not come from an installed pack; there is nothing to revert to"
        case let .tooManyPacksOnDemand(count, limit):
            "a store reading on demand shows at most \(limit) packs (SQLite attaches at most \(limit) files), and \(count) would be installed; "
                + "remove one, or open the store with residency .resident"
        }
    }
}
