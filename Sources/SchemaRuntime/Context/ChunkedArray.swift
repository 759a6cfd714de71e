/// An array kept in chunks of ``chunkSize`` elements, for the per-key columns of a table
/// (rows, ids, links, reference counts).
///
/// Contexts share tables between copies and copy on write, and a store keeps its current
/// graph while a write works on a copy of it. A flat array would then copy every element on
/// the write's first change: O(n) per write, however small the write. Here a copy shares
/// every chunk, and a write copies the chunk index (n / 1024 references) and the one chunk
/// it changes (1,024 elements): O(n / 1024 + 1024), least for tables of about a million
/// rows (the two terms meet at 1024²).
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

    @usableFromInline var chunks: ContiguousArray<ContiguousArray<Element>> = []
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
        _read { yield chunks[position >> Self.chunkShift][position & (Self.chunkSize - 1)] }
        _modify { yield &chunks[position >> Self.chunkShift][position & (Self.chunkSize - 1)] }
    }

    /// Amortized O(1).
    @inlinable mutating func append(_ element: Element) {
        if count & (Self.chunkSize - 1) == 0 {
            var chunk = ContiguousArray<Element>()
            chunk.reserveCapacity(Self.chunkSize)
            chunks.append(chunk)
        }
        chunks[chunks.count - 1].append(element)
        count += 1
    }

    @inlinable mutating func append<S: Sequence<Element>>(contentsOf elements: S) {
        for element in elements { append(element) }
    }

    /// Removes and returns the last element. O(1).
    @inlinable @discardableResult mutating func removeLast() -> Element {
        precondition(count > 0, "removeLast() on an empty ChunkedArray")
        let element = chunks[chunks.count - 1].removeLast()
        if chunks[chunks.count - 1].isEmpty { chunks.removeLast() }
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

extension ChunkedArray: Sendable where Element: Sendable {}
