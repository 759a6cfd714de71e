/// An array kept in chunks of ``chunkSize`` elements, for the per-key columns of a table
/// (rows, ids, links, reference counts).
///
/// Contexts share tables between copies and copy on write, and a store keeps its current
/// graph while a write works on a copy of it. A flat array would then copy every element on
/// the write's first change: O(n) per write, however small the write. Here a copy shares
/// every chunk, and a write copies the chunk index (n / 1024 references) and each chunk
/// whose elements it changes (1,024 elements): O(n / 1024 + 1024), least for tables of
/// about a million rows (the two terms meet at 1024²). Appending copies no chunk unless
/// another copy appended past this one's end first: the next slot of a shared last chunk
/// is claimed in place (``ChunkStorage``). A new key's row is appended with it
/// (``EntityTable/intern(_:row:)``) for that reason: 1,000 single-message writes went from
/// 292-299 to 274-280 ms, and sorting through an index was no slower (docs/Persistence.md).
///
/// Reads cost one more indirection than a flat array, and a random read may miss the cache
/// once more (the chunk's header): sorting 100,000 rows by an index went from 29 to 38 ms
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

    /// Every chunk but the last is full; the last holds the rest of `count` (all of it when
    /// `count` is a multiple of ``chunkSize``). Chunks are shared between copies (``ChunkStorage``).
    @usableFromInline var chunks: ContiguousArray<ChunkStorage<Element>> = []
    @usableFromInline var count: Int = 0

    @inlinable init() {}

    /// `count` copies of `element`. O(count).
    @inlinable init(repeating element: Element, count: Int) {
        append(contentsOf: repeatElement(element, count: count))
    }

    @inlinable var startIndex: Int { 0 }
    @inlinable var endIndex: Int { count }

    /// O(1); a write to a chunk shared with a copy first copies that chunk. Reads borrow the
    /// element (`_read`), so checking a row for nil does not copy (retain) the row.
    @inlinable subscript(position: Int) -> Element {
        _read {
            precondition(position >= 0 && position < count, "ChunkedArray index out of range")
            yield chunks[position >> Self.chunkShift].elements[position & (Self.chunkSize - 1)]
        }
        _modify {
            precondition(position >= 0 && position < count, "ChunkedArray index out of range")
            let chunk = position >> Self.chunkShift
            if !isKnownUniquelyReferenced(&chunks[chunk]) {
                chunks[chunk] = chunks[chunk].copy(prefix: elementCount(ofChunk: chunk), capacity: Self.chunkSize)
            }
            yield &chunks[chunk].elements[position & (Self.chunkSize - 1)]
        }
    }

    /// How many of this array's elements chunk `chunk` holds.
    @inlinable func elementCount(ofChunk chunk: Int) -> Int {
        chunk < chunks.count - 1 ? Self.chunkSize : count - chunk << Self.chunkShift
    }

    /// Amortized O(1). Appending to a last chunk shared with a copy claims the next slot in
    /// place (``ChunkStorage/claim(_:)``) instead of copying the chunk, unless another holder
    /// of the chunk appended past this array's end first.
    @inlinable mutating func append(_ element: Element) {
        let slot = count & (Self.chunkSize - 1)
        if slot == 0 {
            let chunk = ChunkStorage<Element>.make(capacity: Self.chunkSize)
            chunk.elements.initialize(to: element)
            chunk.claimed = 1
            chunks.append(chunk)
        } else {
            let last = chunks.count - 1
            if isKnownUniquelyReferenced(&chunks[last]) {
                chunks[last].truncate(to: slot)
                chunks[last].claimed = slot + 1
            } else if !chunks[last].claim(slot) {
                chunks[last] = chunks[last].copy(prefix: slot, capacity: Self.chunkSize)
                chunks[last].claimed = slot + 1
            }
            (chunks[last].elements + slot).initialize(to: element)
        }
        count += 1
    }

    @inlinable mutating func append<S: Sequence<Element>>(contentsOf elements: S) {
        for element in elements { append(element) }
    }

    /// Removes and returns the last element. O(1).
    @inlinable @discardableResult mutating func removeLast() -> Element {
        precondition(count > 0, "removeLast() on an empty ChunkedArray")
        let last = chunks.count - 1
        let slot = (count - 1) & (Self.chunkSize - 1)
        let element: Element
        if isKnownUniquelyReferenced(&chunks[last]) {
            chunks[last].truncate(to: slot + 1)
            element = (chunks[last].elements + slot).move()
            chunks[last].claimed = slot
        } else {
            // Other holders may see it: it stays in the chunk, which frees it.
            element = chunks[last].elements[slot]
        }
        if slot == 0 { chunks.removeLast() }
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
