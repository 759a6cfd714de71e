import Foundation

/// The packs a store reading on demand shows now: every new connection attaches this union
/// (``PackUnion``); installing or removing a pack at runtime replaces it. A snapshot taken
/// before keeps the union it attached, so it never changes under its reader.
final class CurrentPackUnion: @unchecked Sendable {
    private let lock = NSLock()
    private var current: PackUnion

    init(_ union: PackUnion) { current = union }

    var union: PackUnion {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }
}
