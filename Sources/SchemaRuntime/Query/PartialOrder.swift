/// Selecting the first few of many elements in an order, without sorting them all.
enum PartialOrder {
    /// The first `count` of the positions `0..<total` in the strict order `precedes`, in
    /// that order. O(total × log count) comparisons and O(count) memory: a max-heap of the
    /// `count` first positions seen, whose top (the last of them) an earlier one replaces.
    static func first(_ count: Int, of total: Int, by precedes: (Int, Int) -> Bool) -> [Int] {
        guard count > 0 else { return [] }
        var heap: [Int] = []
        heap.reserveCapacity(Swift.min(count, total))
        for position in 0..<total {
            if heap.count < count {
                heap.append(position)
                siftUp(&heap, from: heap.count - 1, precedes)
            } else if precedes(position, heap[0]) {
                heap[0] = position
                siftDown(&heap, precedes)
            }
        }
        return heap.sorted(by: precedes)
    }

    /// Restores the heap (each parent after its children in `precedes`) after an append.
    private static func siftUp(_ heap: inout [Int], from index: Int, _ precedes: (Int, Int) -> Bool) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard precedes(heap[parent], heap[child]) else { return }
            heap.swapAt(parent, child)
            child = parent
        }
    }

    /// Restores the heap after its top was replaced.
    private static func siftDown(_ heap: inout [Int], _ precedes: (Int, Int) -> Bool) {
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var last = parent
            if left < heap.count, precedes(heap[last], heap[left]) { last = left }
            if right < heap.count, precedes(heap[last], heap[right]) { last = right }
            guard last != parent else { return }
            heap.swapAt(parent, last)
            parent = last
        }
    }
}
