import Foundation

/// One chunk of a ``ChunkedArray``: room for ``ChunkedArray/chunkSize`` elements, shared by
/// the arrays that hold it, of which the first ``claimed`` are initialized.
///
/// Each array sharing a chunk sees a prefix of it (its own count), and the elements of that
/// prefix never change while the chunk is shared: an array that writes to one copies the
/// chunk first. Appending is the exception that makes sharing cheap: the slot just past an
/// array's prefix is no other array's element yet, so the array may *claim* it in place
/// (``claim(_:)``) instead of copying the chunk's elements, provided no other array claimed
/// it first. A store's write works on a copy of the store's graph and appends its new rows
/// to chunks that graph holds: each such append used to copy the chunk.
///
/// Claims are serialized by one of a few shared locks, taken only while the chunk is
/// shared: an array holding a chunk alone appends to it without one. (`ManagedBuffer` is not
/// `Sendable`; ``ChunkedArray`` says why sharing chunks between threads is safe.)
@usableFromInline
final class ChunkStorage<Element>: ManagedBuffer<Int, Element> {
    /// A chunk with room for `capacity` elements, none of them claimed.
    @inlinable
    static func make(capacity: Int) -> ChunkStorage {
        unsafeDowncast(create(minimumCapacity: capacity) { _ in 0 }, to: ChunkStorage.self)
    }

    /// The chunk's elements; valid while the chunk lives (a `ManagedBuffer`'s elements never move).
    @inlinable
    var elements: UnsafeMutablePointer<Element> {
        withUnsafeMutablePointerToElements { $0 }
    }

    /// How many leading elements are initialized: the most any holder has appended.
    @inlinable
    var claimed: Int {
        get { header }
        set { header = newValue }
    }

    /// A new chunk holding copies of the first `count` elements (the prefix one holder sees).
    @inlinable
    func copy(prefix count: Int, capacity: Int) -> ChunkStorage {
        let copy = ChunkStorage.make(capacity: capacity)
        copy.elements.initialize(from: elements, count: count)
        copy.claimed = count
        return copy
    }

    /// Makes `slot` (the slot just past the caller's prefix) the caller's, when no other
    /// holder of the chunk claimed it: true then, and the caller initializes it. O(1).
    @usableFromInline
    func claim(_ slot: Int) -> Bool {
        let lock = Self.lock(for: self)
        lock.lock()
        defer { lock.unlock() }
        guard claimed == slot else { return false }
        claimed = slot + 1
        return true
    }

    /// Makes a chunk its caller holds alone end at `count`: elements past it (left by
    /// holders that removed them while the chunk was shared) go.
    @inlinable
    func truncate(to count: Int) {
        if claimed > count {
            (elements + count).deinitialize(count: claimed - count)
            claimed = count
        }
    }

    deinit {
        _ = withUnsafeMutablePointers { claimed, elements in elements.deinitialize(count: claimed.pointee) }
    }

    /// The lock that serializes claims on `chunk`: one of a few, chosen by address (a lock
    /// per chunk would be an allocation per chunk, for a rare contention).
    private static func lock(for chunk: AnyObject) -> NSLock {
        chunkClaimLocks[Int(truncatingIfNeeded: UInt(bitPattern: ObjectIdentifier(chunk)) >> 6) & (chunkClaimLocks.count - 1)]
    }
}

/// The locks of ``ChunkStorage/claim(_:)`` (a power of two of them).
private let chunkClaimLocks: [NSLock] = (0..<16).map { _ in NSLock() }
