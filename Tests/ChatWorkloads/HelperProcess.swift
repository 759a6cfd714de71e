import Foundation

/// A child process a test runs, its output read on a thread of its own as it comes, and
/// every wait for it bounded.
///
/// Read as it comes, the output never fills its pipe, which would stop a child that prints
/// a line per write. Bounded, a child that never exits fails its test with what it printed,
/// rather than hanging the suite until CI gives up on it: a writer that was meant to fail
/// with a crashed server's connection found the crash between writes, connected again and
/// wrote on (CI, 2026-12-07).
public final class HelperProcess: @unchecked Sendable {
    public let process: Process
    private let condition = NSCondition()
    /// Everything read so far; `ended` once the child closed its output (it exited).
    private var output = Data()
    private var ended = false

    /// Starts `executable` with `arguments`, its input `input` (else the test's own).
    public init(_ executable: URL, _ arguments: [String], input: Pipe? = nil) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        if let input { process.standardInput = input }
        try process.run()
        let reading = pipe.fileHandleForReading
        let thread = Thread { [self] in
            while true {
                let chunk = reading.availableData
                if chunk.isEmpty { break }
                condition.withLock {
                    output.append(chunk)
                    condition.broadcast()
                }
            }
            condition.withLock {
                ended = true
                condition.broadcast()
            }
        }
        thread.name = "output of \(executable.lastPathComponent)"
        thread.start()
    }

    /// The lines printed so far (a last line not ended yet included).
    public var lines: [String] {
        condition.withLock { Self.lines(output) }
    }

    /// Waits until the child printed the line `line`, ended its output, or `timeout` seconds
    /// passed; the lines printed by then.
    public func lines(until line: String, timeout: TimeInterval) -> [String] {
        let deadline = Date().addingTimeInterval(timeout)
        return condition.withLock {
            while !ended, !Self.lines(output).contains(line), condition.wait(until: deadline) {}
            return Self.lines(output)
        }
    }

    /// Waits up to `timeout` seconds for the child to exit; whether it did. Its output is
    /// then complete.
    public func waitForExit(timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        let closed = condition.withLock {
            while !ended, condition.wait(until: deadline) {}
            return ended
        }
        // Closing its output is about the last thing a child does; its exit follows.
        while closed, process.isRunning, Date() < deadline { usleep(1000) }
        return closed && !process.isRunning
    }

    /// Every thread's stack of the running child, as `gdb` prints it (for a report of a
    /// child that hangs); nil without `gdb` or once it exited.
    public func stacks() -> String? {
        guard process.isRunning, FileManager.default.isExecutableFile(atPath: "/usr/bin/gdb") else { return nil }
        guard let gdb = try? HelperProcess(URL(fileURLWithPath: "/usr/bin/gdb"),
                                           ["-p", "\(process.processIdentifier)", "-batch", "-nx", "-ex", "thread apply all bt 30"]) else { return nil }
        guard gdb.waitForExit(timeout: 60) else {
            gdb.kill()
            return nil
        }
        return gdb.lines.filter { $0.hasPrefix("#") || $0.hasPrefix("Thread") }.joined(separator: "\n")
    }

    /// Kills the child (SIGKILL) and waits for it.
    public func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
        // A killed child exits at once: its output closes with it.
        _ = waitForExit(timeout: 60)
    }

    /// Whether a signal ended the child; false while it runs.
    public var wasKilled: Bool {
        !process.isRunning && process.terminationReason == .uncaughtSignal
    }

    /// Whether the child exited by itself (not by a signal) with status 0; false while it runs.
    public var succeeded: Bool {
        !process.isRunning && process.terminationReason == .exit && process.terminationStatus == 0
    }

    private static func lines(_ data: Data) -> [String] {
        String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }
}
