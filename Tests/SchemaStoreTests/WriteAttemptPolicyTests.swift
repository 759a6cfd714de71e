import DeterministicRandom
@testable import SchemaStore
import Testing

/// Writes on a server try a cheaper way to commit (taking what they load for new, reading
/// before the write lock) until an attempt fails, then do not try for a while that doubles
/// with each failure and halves with each success (``WriteAttemptPolicy``).
struct WriteAttemptPolicyTests {
    @Test func attemptsThatHoldKeepEveryWriteTrying() {
        var policy = WriteAttemptPolicy()
        for _ in 0..<1_000 {
            let assumes = policy.tries()
            #expect(assumes)
            policy.record(held: true)
        }
    }

    @Test func eachFailureInARowDoublesTheWritesThatDoNotTryUpToTheLongest() {
        var policy = WriteAttemptPolicy()
        var readFirst: [Int] = []
        for _ in 0..<10 {
            let assumes = policy.tries()
            #expect(assumes)
            policy.record(held: false)
            var skipped = 0
            while !policy.tries() { skipped += 1 }
            readFirst.append(skipped)
            // The write that assumes again is counted by the next round's failure.
            policy.record(held: false)
            while !policy.tries() {}
        }
        #expect(readFirst.prefix(3) == [4, 16, 64])
        #expect(readFirst.allSatisfy { $0 <= WriteAttemptPolicy.longestBackoff })
        #expect(readFirst.last == WriteAttemptPolicy.longestBackoff)
    }

    /// Random outcomes against a reference model: the writes between an assumption that
    /// failed and the next one that assumes are exactly the backoff at that failure, and
    /// the backoff is the shortest doubled per failure and halved per success, in bounds.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func randomOutcomesMatchTheModel(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var policy = WriteAttemptPolicy()
        var modelBackoff = WriteAttemptPolicy.shortestBackoff
        var modelSkipped = 0
        let failureRate = [0.05, 0.5, 0.95][Int(seed % 3)]
        for _ in 0..<20_000 {
            let expectAssumes = modelSkipped == 0
            if !expectAssumes { modelSkipped -= 1 }
            let assumes = policy.tries()
            #expect(assumes == expectAssumes)
            guard expectAssumes else { continue }
            let held = Double.random(in: 0..<1, using: &random) >= failureRate
            policy.record(held: held)
            if held {
                modelBackoff = max(modelBackoff / 2, WriteAttemptPolicy.shortestBackoff)
            } else {
                modelSkipped = modelBackoff
                modelBackoff = min(modelBackoff * 2, WriteAttemptPolicy.longestBackoff)
            }
            #expect(policy.backoff == modelBackoff && policy.skipped == modelSkipped && policy.lastFailed == !held)
        }
    }
}
