@testable import SchemaStore
import DeterministicRandom
import Testing

/// `NotifiedCommits`: at most one check under way, and every notification covered by a
/// check that began after it arrived, checked against a reference model over random
/// interleavings of notifications and one checker's steps.
@Suite struct NotifiedCommitsTests {
    @Test func waitingNotificationsMerge() {
        typealias Waiting = NotifiedCommits.Waiting
        #expect(Waiting.upTo(3).merged(with: nil) == .upTo(3))
        #expect(Waiting.upTo(3).merged(with: .upTo(7)) == .upTo(7))
        #expect(Waiting.upTo(9).merged(with: .upTo(7)) == .upTo(9))
        #expect(Waiting.upTo(3).merged(with: .unknown) == .unknown)
        #expect(Waiting.unknown.merged(with: .upTo(7)) == .unknown)
    }

    @Test(arguments: 1...40 as ClosedRange<UInt64>)
    func everyNotificationIsCoveredByACheckThatBeganAfterIt(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let notified = NotifiedCommits()
        // The model: notifications not yet covered by a check that began after them
        // (nil: an unknown commit), and the checker's state.
        var uncovered: [Int64?] = []
        var checking = false
        var covering: (waiting: NotifiedCommits.Waiting, notifications: [Int64?])?
        var next: Int64 = 1
        var ran = 0, skipped = 0
        for _ in 0..<300 {
            switch random.next() % 4 {
            case 0, 1:
                // A notification arrives.
                let number: Int64? = random.next() % 5 == 0 ? nil : next
                next += 1
                uncovered.append(number)
                let starts = notified.notify(number.map { .upTo($0) } ?? .unknown)
                #expect(starts == !checking, "a check starts only when none is under way")
                checking = true
            case 2 where checking && covering == nil:
                // The check begins: it covers everything that arrived before.
                let waiting = notified.begin()
                let expected: NotifiedCommits.Waiting = uncovered.contains(nil) || uncovered.isEmpty
                    ? .unknown : .upTo(uncovered.compactMap { $0 }.max()!)
                #expect(waiting == expected)
                covering = (waiting, uncovered)
                uncovered = []
            case 3 where covering != nil:
                // It could not run (a write held the lock), ran, or was skipped.
                switch random.next() % 3 {
                case 0:
                    notified.putBack(covering!.waiting)
                    uncovered = covering!.notifications + uncovered
                    covering = nil
                case let outcome:
                    if outcome == 1 { ran += 1 } else { skipped += 1 }
                    covering = nil
                    let again = notified.end(ran: outcome == 1)
                    #expect(again == !uncovered.isEmpty, "another check exactly when notifications came meanwhile")
                    checking = again
                }
            default:
                break
            }
        }
        #expect(notified.counts == (ran, skipped))
    }
}
