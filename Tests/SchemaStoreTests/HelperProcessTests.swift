import ChatWorkloads
import Foundation
import Testing

/// The child processes the crash and process tests run (`HelperProcess`): their output is
/// read as it comes, whatever its size, and a child that never exits is found so within
/// the wait's bound, then killed, rather than hanging the test run.
@Suite struct HelperProcessTests {
    static let shell = URL(fileURLWithPath: "/bin/sh")

    @Test func aChildThatExitsGivesAllItsOutput() throws {
        let child = try HelperProcess(Self.shell, ["-c", "echo one; echo two; exit 3"])
        #expect(child.waitForExit(timeout: 30))
        #expect(child.lines == ["one", "two"])
        #expect(!child.succeeded && !child.wasKilled && child.process.terminationStatus == 3)
    }

    /// More output than a pipe holds (64 KiB on Linux), then no exit: without the output read
    /// as it comes the child would block on its write, and a wait without a bound would never end.
    @Test func aChildThatNeverExitsIsFoundSoAndKilled() throws {
        let child = try HelperProcess(Self.shell, ["-c", "i=0; while [ $i -lt 30000 ]; do echo line$i; i=$((i+1)); done; echo ready; exec sleep 600"])
        let lines = child.lines(until: "ready", timeout: 60)
        #expect(lines.count == 30_001 && lines.first == "line0" && lines.last == "ready")
        let start = Date()
        #expect(!child.waitForExit(timeout: 0.5))
        #expect(Date().timeIntervalSince(start) < 30)
        // What a report of a hang shows, where gdb is installed.
        if let stacks = child.stacks() { #expect(stacks.contains("#0"), "\(stacks)") }
        child.kill()
        #expect(child.wasKilled && !child.process.isRunning)
    }
}
