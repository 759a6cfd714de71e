extension Store {
    /// What a context from ``Store/context`` does when a read it needs fails, for a store
    /// reading on demand (a server gone or restarted after other commits, a file damaged
    /// under a held snapshot). Its queries cannot throw; inside ``Store/read(_:)`` such a
    /// failure is thrown instead, whatever this says.
    public enum ContextReadFailure: Sendable {
        /// Stops the process with the error, rather than answer wrongly. The default.
        case stopProcess
        /// Answers as if nothing were stored where the read failed (no rows, an empty list,
        /// a count of 0) and calls `report` with the error, once for each read that failed
        /// (taking a context when the database cannot be read answers an empty graph), on the
        /// thread of the query, outside the store's locks (it may read the store again). For
        /// a service that would rather degrade, and alert, than stop: its answers are then
        /// incomplete, and `report` is how it knows.
        case answerEmpty(report: @Sendable (any Error) -> Void)

        /// The reporter of ``answerEmpty(report:)``; nil for ``stopProcess``.
        var report: (@Sendable (any Error) -> Void)? {
            if case .answerEmpty(let report) = self { return report }
            return nil
        }
    }
}
