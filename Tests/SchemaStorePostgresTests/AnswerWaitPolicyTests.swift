import DeterministicRandom
@testable import SchemaStorePostgres
import Testing

/// A connection polls for answers only while they come quickly, never longer than
/// ``AnswerWaitPolicy/longestPoll``, and stops after polls that come too late
/// (``AnswerWaitPolicy``).
struct AnswerWaitPolicyTests {
    private static let microsecond: UInt64 = 1_000

    /// Plays `waits` (nanoseconds) against a policy: an answer is caught while polling when it
    /// comes within the window. Returns each wait's window (nil: slept at once).
    private static func play(_ waits: [UInt64], on policy: inout AnswerWaitPolicy) -> [UInt64?] {
        waits.map { wait in
            let window = policy.pollWindow()
            // A poll that misses its answer waits the whole window, then sleeps for the rest.
            policy.record(waited: wait, answeredWhilePolling: window.map { wait <= $0 })
            return window
        }
    }

    @Test func answersThatComeQuicklyAreAlwaysPolledFor() {
        var policy = AnswerWaitPolicy()
        let windows = Self.play(Array(repeating: 120 * Self.microsecond, count: 500), on: &policy)
        #expect(windows.allSatisfy { $0 != nil })
        // Twice the typical wait once it settles: long enough to catch each answer.
        #expect(windows.suffix(100).allSatisfy { $0! >= 200 * Self.microsecond && $0! <= AnswerWaitPolicy.longestPoll })
    }

    @Test func slowAnswersAreSleptForAndPollingResumesWhenTheyAreQuickAgain() {
        var policy = AnswerWaitPolicy()
        _ = Self.play(Array(repeating: 100 * Self.microsecond, count: 100), on: &policy)
        // Another process holds the lock: writes wait milliseconds.
        let slow = Self.play(Array(repeating: 3_000 * Self.microsecond, count: 200), on: &policy)
        #expect(slow.suffix(190).allSatisfy { $0 == nil })
        #expect(slow.compactMap { $0 }.count <= 2, "at most the poll that missed and one more before the average rose")
        // Quick again: polling resumes within the waits that bring the average down and
        // the backoff after the last missed poll (at most 256).
        let quick = Self.play(Array(repeating: 100 * Self.microsecond, count: 400), on: &policy)
        #expect(quick.suffix(100).allSatisfy { $0 != nil })
    }

    /// Random waits in phases, quick, slow and mixed: no window is ever outside its bounds, none is offered
    /// while the typical wait is above the longest poll, and after each poll that missed,
    /// the next waits (as many as the backoff said) sleep at once.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func windowsStayInBoundsAndMissedPollsBackOff(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var policy = AnswerWaitPolicy()
        var sleepsOwed = 0
        var missed = 0
        let phases: [ClosedRange<UInt64>] = [20_000...250_000, 1_000_000...20_000_000, 20_000...600_000]
        var phase = phases[0]
        for step in 0..<20_000 {
            if step % 150 == 0 { phase = phases[Int.random(in: 0..<phases.count, using: &random)] }
            let wait = UInt64.random(in: phase, using: &random)
            let typicalBefore = policy.typical
            let backoffBefore = policy.backoff
            let window = policy.pollWindow()
            if sleepsOwed > 0 {
                #expect(window == nil)
                sleepsOwed -= 1
            } else if typicalBefore > AnswerWaitPolicy.longestPoll {
                #expect(window == nil)
            } else if let window {
                #expect(window >= AnswerWaitPolicy.shortestPoll && window <= AnswerWaitPolicy.longestPoll)
                #expect(window >= min(AnswerWaitPolicy.longestPoll, 2 * typicalBefore))
            } else {
                Issue.record("no poll while the typical wait was \(typicalBefore) ns")
            }
            let answered = window.map { wait <= $0 }
            policy.record(waited: wait, answeredWhilePolling: answered)
            if answered == false {
                missed += 1
                sleepsOwed = backoffBefore
                #expect(policy.backoff == min(backoffBefore * 2, AnswerWaitPolicy.longestBackoff))
            } else if answered == true {
                #expect(policy.backoff == max(backoffBefore / 2, AnswerWaitPolicy.shortestBackoff))
            } else {
                #expect(policy.backoff == backoffBefore)
            }
            #expect(policy.typical <= AnswerWaitPolicy.longestCounted)
        }
        #expect(missed > 10)
    }
}
