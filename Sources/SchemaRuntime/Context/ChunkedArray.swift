/// An array kept in chunks of ``chunkSize`` elements, for the per-key columns of a table
/// (rows, ids, links, reference counts).
///
/// Contexts share tables between copies and copy on write, and a store keeps its current
/// graph while a write works on a copy of it. A flat array would then copy every element on
/// the write's first change: O(n) per write, however small the write. Here a copy shares
/// every chunk, and a write to an older element copies the chunk index (n / 1024
/// references, each retained) and the element's chunk (1,024 elements): O(n / 1024 +
/// 1024), least for tables of about a million rows (the two terms meet at 1024²).
///
/// Appending, the usual write (a new row in each of its table's columns), is cheaper: the
/// last chunk is kept apart from the index (``tail``), and the next slot of a shared last
/// chunk is claimed in place (``ChunkStorage``), so an append copies neither the index nor
/// the chunk, unless another copy appended past this one's end first: O(1). Writing one of
/// the newest 1,024 elements copies that chunk only. A new key's row is appended with it
/// (``EntityTable/intern(_:row:)``) for that reason. The index copy was most of a small
/// write in a million-row graph: a message in its own write went from 0.25 to 0.15 ms in
/// memory (`schemastore-bench write-growth`, docs/Persistence.md).
///
/// Reads go through ``bases``, each chunk's elements, one load and no branch: reading
/// through `chunks` or `tail` instead (a branch per read) made sorting 100,000 rows through
/// an index 1.7x slower. They cost one more indirection than a flat array, and a random read
/// may miss the cache once more: sorting 100,000 rows by an index went from 29 to 38 ms
/// (median of 5, alternated). Chunks were 4,096 elements until 2026-11-26: 1,024 then made
/// a single-message write in a 100,000-message store 0.16-0.17 ms instead of 0.21-0.22
/// (the copy of the chunk it appends to was a quarter of its time), bulk saves 4-6% slower,
/// and that sort no slower (16-19 ms either way, alternated); an earlier measurement had
/// found it 1.6x slower. docs/Persistence.md.
@usableFromInline
struct ChunkedArray<Element>: RandomAccessCollection, MutableCollection {
    /// Elements per chunk, a power of two (index arithmetic is shifts and masks).
    @usableFromInline static var chunkShift: Int { 10 }
    @usableFromInline static var chunkSize: Int { 1 << chunkShift }

    /// The full chunks, in order; the elements past them are in ``tail``. Chunks are shared
    /// between copies (``ChunkStorage``).
    @usableFromInline var chunks: ContiguousArray<ChunkStorage<Element>> = []
    /// The last chunk, holding the `count - chunks.count * chunkSize` elements past the full
    /// ones (1 to ``chunkSize``; nil when there are none). Apart from `chunks`, so that
    /// appending to it, or writing it, leaves `chunks` alone: writing `chunks` while a copy
    /// shares it copies it, n / 1,024 references, each retained (and released again when the
    /// older copy goes), which every write of a store's graph did for each column it appended to.
    @usableFromInline var tail: ChunkStorage<Element>? = nil
    /// The elements of each chunk, `chunks`' then `tail`'s: what reads go through, one load
    /// and no branch. Copying it copies plain pointers (memory speed, no retains), which a
    /// write does only when it puts a new chunk in place of a shared one.
    @usableFromInline var bases: ContiguousArray<UnsafeMutablePointer<Element>> = []
    @usableFromInline var count: Int = 0

    @inlinable init() {}

    /// `count` copies of `element`. O(count).
    @inlinable init(repeating element: Element, count: Int) {
        append(contentsOf: repeatElement(element, count: count))
    }

    @inlinable var startIndex: Int { 0 }
    @inlinable var endIndex: Int { count }

    /// How many elements ``tail`` holds.
    @inlinable var tailCount: Int { count - chunks.count << Self.chunkShift }

    /// O(1); a write to a chunk shared with a copy first copies that chunk. Reads borrow the
    /// element (`_read`), so checking a row for nil does not copy (retain) the row.
    @inlinable subscript(position: Int) -> Element {
        _read {
            precondition(position >= 0 && position < count, "ChunkedArray index out of range")
            yield bases[position >> Self.chunkShift][position & (Self.chunkSize - 1)]
        }
        _modify {
            precondition(position >= 0 && position < count, "ChunkedArray index out of range")
            let chunk = position >> Self.chunkShift
            if chunk < chunks.count {
                if !isKnownUniquelyReferenced(&chunks[chunk]) {
                    chunks[chunk] = chunks[chunk].copy(prefix: Self.chunkSize, capacity: Self.chunkSize)
                    bases[chunk] = chunks[chunk].elements
                }
            } else if !isKnownUniquelyReferenced(&tail) {
                tail = tail.unsafelyUnwrapped.copy(prefix: tailCount, capacity: Self.chunkSize)
                bases[chunk] = tail.unsafelyUnwrapped.elements
            }
            let base = bases[chunk]
            yield &base[position & (Self.chunkSize - 1)]
        }
    }

    /// Amortized O(1). Appending to a tail shared with a copy claims its next slot in place
    /// (``ChunkStorage/claim(_:)``) instead of copying it, unless another holder of the chunk
    /// appended past this array's end first; the chunk index is written once per
    /// ``chunkSize`` appends, when the tail is full.
    @inlinable mutating func append(_ element: Element) {
        var slot = tailCount
        if slot == Self.chunkSize {
            chunks.append(tail.unsafelyUnwrapped)
            tail = nil
            slot = 0
        }
        if slot == 0 {
            let chunk = ChunkStorage<Element>.make(capacity: Self.chunkSize)
            chunk.elements.initialize(to: element)
            chunk.claimed = 1
            tail = chunk
            bases.append(chunk.elements)
        } else {
            if isKnownUniquelyReferenced(&tail) {
                tail.unsafelyUnwrapped.truncate(to: slot)
                tail.unsafelyUnwrapped.claimed = slot + 1
            } else if !tail.unsafelyUnwrapped.claim(slot) {
                tail = tail.unsafelyUnwrapped.copy(prefix: slot, capacity: Self.chunkSize)
                tail.unsafelyUnwrapped.claimed = slot + 1
                bases[chunks.count] = tail.unsafelyUnwrapped.elements
            }
            (tail.unsafelyUnwrapped.elements + slot).initialize(to: element)
        }
        count += 1
    }

    @inlinable mutating func append<S: Sequence<Element>>(contentsOf elements: S) {
        for element in elements { append(element) }
    }

    /// Removes and returns the last element. O(1).
    @inlinable @discardableResult mutating func removeLast() -> Element {
        precondition(count > 0, "removeLast() on an empty ChunkedArray")
        if tailCount == 0 { tail = chunks.removeLast() }
        let slot = tailCount - 1
        let element: Element
        if isKnownUniquelyReferenced(&tail) {
            tail.unsafelyUnwrapped.truncate(to: slot + 1)
            element = (tail.unsafelyUnwrapped.elements + slot).move()
            tail.unsafelyUnwrapped.claimed = slot
        } else {
            // Other holders may see it: it stays in the chunk, which frees it.
            element = tail.unsafelyUnwrapped.elements[slot]
        }
        if slot == 0 {
            tail = nil
            bases.removeLast()
        }
        count -= 1
        return element
    }

    /// Removes the last `k` elements. O(k).
    @inlinable mutating func removeLast(_ k: Int) {
        for _ in 0..<k { removeLast() }
    }

    /// Chunks are allocated full-size as they are needed; nothing to reserve.
    @inlinable mutating func reserveCapacity(_ minimumCapacity: Int) {}
}

// Chunks are shared between arrays on different threads: a chunk's `claimed` changes under
// a claim lock (``ChunkStorage/claim(_:)``) or by the chunk's only holder; an element is
// initialized by the holder that claimed its slot, or written by the chunk's only holder;
// and no holder reads past its own count.
extension ChunkedArray: @unchecked Sendable where Element: Sendable {}
