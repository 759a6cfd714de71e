import CLibPQ
import Foundation

/// How a connection waits for the server's answers: by polling its socket for a short
/// while before sleeping on it, when answers usually come within that while.
///
/// A thread sleeping on the socket is woken by the server's send: the server pays for the
/// wake-up (an eighth of its time in a single write, under `perf`) and the thread then
/// waits to be scheduled. Polling avoids both: a single resident write took 0.21 ms instead
/// of 0.26 (docs/PostgreSQL-figures.md). Polling while the server is slow (a write waiting for
/// another process's lock, a long query) would only take a core from the server, so
/// ``AnswerWaitPolicy`` decides from the connection's recent waits whether and how long to
/// poll, and the poll yields the core between reads, so that a thread ready to run (the
/// server itself, on a busy machine) runs first. The price is the core the polling thread
/// keeps busy while it waits, at most 0.2 ms a wait.
struct AnswerWait {
    private var policy = AnswerWaitPolicy()

    /// Waits until `handle` has a result to read without blocking (or failed: the caller's
    /// `PQgetResult` then reports it), and counts how long that took.
    mutating func wait(_ handle: OpaquePointer) {
        let start = DispatchTime.now().uptimeNanoseconds
        var now = start
        var answeredWhilePolling: Bool?
        if let window = policy.pollWindow() {
            let deadline = start + window
            while PQisBusy(handle) == 1, PQconsumeInput(handle) == 1, now < deadline {
                sched_yield()
                now = DispatchTime.now().uptimeNanoseconds
            }
            answeredWhilePolling = PQisBusy(handle) == 0
        }
        if PQisBusy(handle) == 1 {
            // Sleeping on the socket, as libpq would.
            var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
            while descriptor.fd >= 0, PQisBusy(handle) == 1 {
                guard poll(&descriptor, 1, -1) >= 0 || errno == EINTR else { break }
                guard PQconsumeInput(handle) == 1 else { break }
            }
            now = DispatchTime.now().uptimeNanoseconds
        }
        policy.record(waited: now - start, answeredWhilePolling: answeredWhilePolling)
        AnswerWaitTotals.count(now - start)
    }
}
