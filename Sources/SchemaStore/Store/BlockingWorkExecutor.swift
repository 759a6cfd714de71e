import Foundation

/// Threads of the stores' own for work that waits for a server (a commit, a query answered
/// on demand), so that async callers never hold a thread of Swift's cooperative pool while
/// they wait: that pool has about one thread per core, and a service whose requests each
/// held one through a round trip would stop running anything else.
///
/// A task executor (SE-0417): ``BlockingWork`` runs a closure on one of its threads, in
/// the calling task, which is suspended meanwhile. A thread is started when a job finds none
/// idle, up to ``maximumThreads`` (past that, jobs wait their turn, first in first out), and
/// ends after ``idleTimeout`` without work. Enqueuing is O(1) amortized.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class BlockingWorkExecutor: TaskExecutor, @unchecked Sendable {
    /// The one every store uses.
    static let shared = BlockingWorkExecutor()

    let maximumThreads: Int
    let idleTimeout: TimeInterval

    /// Guards everything below; idle threads wait on it.
    private let condition = NSCondition()
    /// Jobs not yet taken, oldest first from `head`.
    private var jobs: [UnownedJob] = []
    private var head = 0
    private var threads = 0
    private var idle = 0

    init(maximumThreads: Int = 64, idleTimeout: TimeInterval = 5) {
        precondition(maximumThreads > 0, "an executor needs a thread")
        self.maximumThreads = maximumThreads
        self.idleTimeout = idleTimeout
    }

    /// How many threads are running now, idle ones included.
    var threadCount: Int { condition.withLock { threads } }

    /// How many jobs wait for a thread.
    var waitingJobCount: Int { condition.withLock { jobs.count - head } }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        // Each idle thread takes one job; a job beyond them gets a new thread while allowed.
        let waiting = jobs.count - head
        let startsThread = waiting > idle && threads < maximumThreads
        if startsThread {
            threads += 1
        } else if idle > 0 {
            condition.signal()
        }
        condition.unlock()
        if startsThread { startThread() }
    }

    private func startThread() {
        let thread = Thread { [self] in
            Self.currentThreadIsOurs = true
            work()
        }
        thread.name = "SchemaStore blocking work"
        thread.start()
    }

    /// A thread's life: takes jobs until none came for ``idleTimeout``.
    private func work() {
        condition.lock()
        while true {
            if head < jobs.count {
                let job = jobs[head]
                head += 1
                // Drops the taken jobs once they are half the array: O(1) amortized.
                if head == jobs.count {
                    jobs.removeAll(keepingCapacity: true)
                    head = 0
                } else if head * 2 > jobs.count {
                    jobs.removeFirst(head)
                    head = 0
                }
                condition.unlock()
                job.runSynchronously(on: asUnownedTaskExecutor())
                condition.lock()
                continue
            }
            idle += 1
            let signalled = condition.wait(until: Date(timeIntervalSinceNow: idleTimeout))
            idle -= 1
            if !signalled && head == jobs.count {
                threads -= 1
                condition.unlock()
                return
            }
        }
    }

    /// Whether the calling thread is one of an executor's (tests check where work ran).
    static var currentThreadIsOurs: Bool {
        get { Thread.current.threadDictionary[markerKey] != nil }
        set { Thread.current.threadDictionary[markerKey] = newValue ? true : nil }
    }
    private static let markerKey = "SchemaStore.BlockingWorkExecutor"
}
