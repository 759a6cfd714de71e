/// An array kept in chunks of ``chunkSize`` elements, for the per-key columns of a table
/// (rows, ids, links, reference counts).
///
/// Contexts share tables between copies and copy on write, and a store keeps its current
/// graph while a write works on a copy of it. A flat array would then copy every element on
/// the write's first change: O(n) per write, however small the write. Here a copy shares
/// every chunk, and a write to an older element copies the element's chunk (B elements,
/// B = ``chunkSize``), its group of the chunk index (64 references) and the index of
/// groups (n / (64·B) references, each retained), plus the read pointers (n / B, at memory
/// speed): O(B + 64 + n / (64·B)) retains. Until 2026-11-27 the index was one array of n / B
/// references, which a write to an old row of a million-row table copied in each column.
///
/// Appending, the usual write (a new row in each of its table's columns), is cheaper: the
/// last chunk is kept apart from the index (``tail``), and the next slot of a shared last
/// chunk is claimed in place (``ChunkStorage``), so an append copies neither the index nor
/// the chunk, unless another copy appended past this one's end first: O(1). Writing one of
/// the newest B elements copies that chunk only. A new key's row is appended with it
/// (``EntityTable/intern(_:row:)``) for that reason. The index copy was most of a small
/// write in a million-row graph: a message in its own write went from 0.25 to 0.15 ms in
/// memory (`schemastore-bench write-growth`, docs/Persistence.md).
///
/// Reads go through ``bases``, each chunk's elements, one load and no branch: reading
/// through the chunk index or `tail` instead (a branch per read) made sorting 100,000 rows through
/// an index 1.7x slower. They cost one more indirection than a flat array, and a random read
/// may miss the cache once more: sorting 100,000 rows by an index went from 29 to 38 ms
/// (median of 5, alternated). Chunks were 4,096 elements until 2026-11-26: 1,024 then made
/// a single-message write in a 100,000-message store 0.16-0.17 ms instead of 0.21-0.22
/// (the copy of the chunk it appends to was a quarter of its time), bulk saves 4-6% slower,
/// and that sort no slower (16-19 ms either way, alternated); an earlier measurement had
/// found it 1.6x slower. docs/Persistence.md.
@usableFromInline
struct ChunkedArray<Element>: RandomAccessCollection, MutableCollection {
    /// Elements per chunk, a power of two (index arithmetic is shifts and masks): 1,024 for
    /// plain values, whose copy is a memory copy, 256 for elements holding references, each
    /// retained by a copy (a write to a shared chunk copies it whole).
    @usableFromInline static var chunkShift: Int { _isPOD(Element.self) ? 10 : 8 }
    @usableFromInline static var chunkSize: Int { 1 << chunkShift }
    /// Chunks per group of the chunk index.
    @usableFromInline static var groupShift: Int { 6 }
    @usableFromInline static var groupSize: Int { 1 << groupShift }

    /// The full chunks, in order, in groups of ``groupSize`` (the last one may hold fewer);
    /// the elements past them are in ``tail``. Chunks are shared between copies
    /// (``ChunkStorage``); a write to a shared chunk copies the group directory and its
    /// group (n / (chunkSize · 64) + 64 references), not every chunk's reference.
    @usableFromInline var groups: ContiguousArray<ContiguousArray<ChunkStorage<Element>>> = []
    /// How many full chunks `groups` holds.
    @usableFromInline var chunkCount = 0
    /// The last chunk, holding the `count - chunkCount * chunkSize` elements past the full
    /// ones (1 to ``chunkSize``; nil when there are none). Apart from `groups`, so that
    /// appending to it, or writing it, leaves `groups` alone: writing `groups` while a copy
    /// shares it copies it, which every write of a store's graph did for each column it
    /// appended to.
    @usableFromInline var tail: ChunkStorage<Element>? = nil
    /// The elements of each chunk, `groups`' then `tail`'s: what reads go through, one load
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
    @inlinable var tailCount: Int { count - chunkCount << Self.chunkShift }

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
            if chunk < chunkCount {
                let (group, slot) = (chunk >> Self.groupShift, chunk & (Self.groupSize - 1))
                if !isKnownUniquelyReferenced(&groups[group][slot]) {
                    let copy = groups[group][slot].copy(prefix: Self.chunkSize, capacity: Self.chunkSize)
                    groups[group][slot] = copy
                    bases[chunk] = copy.elements
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
            if chunkCount & (Self.groupSize - 1) == 0 {
                groups.append([tail.unsafelyUnwrapped])
            } else {
                groups[groups.count - 1].append(tail.unsafelyUnwrapped)
            }
            chunkCount += 1
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
                bases[chunkCount] = tail.unsafelyUnwrapped.elements
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
        if tailCount == 0 {
            tail = groups[groups.count - 1].removeLast()
            if groups[groups.count - 1].isEmpty { groups.removeLast() }
            chunkCount -= 1
        }
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
