import Foundation
import SchemaRuntime

/// Frees the graph a write replaced while the store's next round trip waits for the server.
///
/// A write copies each chunk of a table it changes, and the graph before it then holds the
/// only reference to the old chunks: dropping that graph as the write returned freed them
/// on the writer's thread first, a tenth of a resident single write's client time on a
/// server (`perf`, docs/PostgreSQL-figures.md). A store on a server instead keeps the graph
/// here (``keep(_:)``), and its connection drops it (``releaseKept()``) once it has sent
/// its next statements and waits for their answers: time the thread spent polling the
/// socket. Graphs that snapshots still hold are only released there, not freed.
///
/// Only small writes' graphs are kept (``mostRowsKept``): a big write's old chunks are
/// many, and a store that goes quiet after it would hold them until its next round trip.
final class GraphRetirement: @unchecked Sendable {
    private let lock = NSLock()
    /// Graphs kept and not yet released, under `lock`.
    private var kept: [Context] = []

    /// The most rows a write may have changed for the graph before it to be kept: a chunk
    /// or so of each table it changed.
    static let mostRowsKept = 64

    /// Keeps `graph` until ``releaseKept()``. O(1) amortized.
    func keep(_ graph: Context) {
        lock.withLock { kept.append(graph) }
    }

    /// Drops every graph kept, on the calling thread. O(1) when none is.
    func releaseKept() {
        let released = lock.withLock {
            let released = kept
            kept = []
            return released
        }
        // Freed here, outside the lock, as `released` goes.
        _ = released.count
    }

    /// Graphs kept and not yet released.
    var keptCount: Int { lock.withLock { kept.count } }
}
