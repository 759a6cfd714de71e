import Dispatch
import Foundation

/// Whether waits inside async work hold threads of Swift's cooperative pool: more tasks than
/// the pool has threads each wait for a gate that one more task opens. Were their waits
/// holding the pool's threads, that task would run only once they gave up (after
/// `timeout` seconds each).
public enum CooperativePoolGate {
    /// How many waiters: more than the pool's threads (about one per core).
    public static var waiters: Int { ProcessInfo.processInfo.activeProcessorCount + 2 }

    /// Runs `block` in `waiters` tasks, each given its number and a wait for the gate (true
    /// when the gate opened, false when it gave up), beside a task that opens the gate.
    /// Whether every wait ended with the gate open.
    public static func waitsEndOpen(timeout: Double = 10,
                                    _ block: @escaping @Sendable (_ index: Int, _ wait: @escaping @Sendable () -> Bool) async throws -> Bool) async throws -> Bool {
        let gate = DispatchSemaphore(value: 0)
        let count = waiters
        let opened = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<count {
                group.addTask { try await block(index) { gate.wait(timeout: .now() + timeout) == .success } }
            }
            group.addTask {
                for _ in 0..<count { gate.signal() }
                return true
            }
            return try await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        return opened.count == count + 1 && opened.allSatisfy { $0 }
    }
}
