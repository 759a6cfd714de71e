import Foundation

/// The commit notifications a store has not checked yet, and whether a check is under way:
/// at most one check waits or runs at a time, and each covers every notification that
/// arrived before it began. A writer notifies every commit, its own included, so a busy
/// writer would otherwise start a check (and, while its writes hold the lock, a chain of
/// retries) per commit.
final class NotifiedCommits: @unchecked Sendable {
    /// What the notifications not checked yet say.
    enum Waiting: Sendable, Equatable {
        /// Commits up to this number (the notifications' payloads).
        case upTo(Int64)
        /// Commits not known (the listener connected again, and may have missed some).
        case unknown

        /// What this and `other` (nil: nothing) say together.
        func merged(with other: Waiting?) -> Waiting {
            switch (self, other) {
            case (_, nil): self
            case (.upTo(let number), .upTo(let otherNumber)?): .upTo(max(number, otherNumber))
            default: .unknown
            }
        }
    }

    private let lock = NSLock()
    private var waiting: Waiting?
    private var checking = false
    /// Checks that ran, and checks skipped because every commit notified was seen already
    /// (this store's own): tests check that a store's own commits cost no read.
    private var ran = 0, skipped = 0

    /// Records a notification; returns whether the caller starts the check (none was under way).
    func notify(_ waiting: Waiting) -> Bool {
        lock.withLock {
            self.waiting = waiting.merged(with: self.waiting)
            defer { checking = true }
            return !checking
        }
    }

    /// What the check beginning now covers (it reads the database after this).
    func begin() -> Waiting {
        lock.withLock {
            defer { waiting = nil }
            return waiting ?? .unknown
        }
    }

    /// The check that began with `covered` could not run: still waiting.
    func putBack(_ covered: Waiting) {
        lock.withLock { waiting = covered.merged(with: waiting) }
    }

    /// The check ended (`ran`: whether it ran or was skipped; nil: it could not run).
    /// Returns whether notifications came meanwhile, for another check; else none is under
    /// way any more.
    func end(ran: Bool?) -> Bool {
        lock.withLock {
            if let ran {
                if ran { self.ran += 1 } else { skipped += 1 }
            }
            checking = waiting != nil
            return checking
        }
    }

    /// Counts a notification of commits already seen (the store's own) that started no check.
    func countSkipped() {
        lock.withLock { skipped += 1 }
    }

    var counts: (ran: Int, skipped: Int) { lock.withLock { (ran, skipped) } }
}
