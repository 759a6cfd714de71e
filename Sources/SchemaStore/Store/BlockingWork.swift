/// Where a store's async API runs the part of its work that blocks on a server: on a thread
/// of ``BlockingWorkExecutor``, not one of Swift's cooperative pool.
enum BlockingWork {
    /// Runs `work` and returns what it returns: on a thread of ``BlockingWorkExecutor/shared``
    /// when called from code isolated to no actor (``elsewhere(_:)``), else in place, on the
    /// caller's actor (the main actor: an app's UI), as the synchronous API would.
    nonisolated(nonsending) static func run<Result>(_ work: () throws -> Result) async rethrows -> Result {
        if let result = try await elsewhere(work) { return result }
        return try work()
    }

    /// Runs `work` on a thread of ``BlockingWorkExecutor/shared``, in the calling task, which
    /// waits suspended, and returns what it returns; nil, running nothing, when the caller is
    /// isolated to an actor (whose code must run on the actor), and before macOS 15 and iOS
    /// 18, where task executors are missing.
    ///
    /// Why `work` need not be `Sendable`: it moves to another thread only when the caller is
    /// isolated to no actor, and then stays in the caller's task, which does nothing else
    /// until it returns (as a task moves between the cooperative pool's threads). That
    /// condition is checked here, at run time, because the compiler cannot see it.
    nonisolated(nonsending) static func elsewhere<Result>(_ work: () throws -> Result) async rethrows -> Result? {
        let caller: (any Actor)? = #isolation
        guard caller == nil, #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return nil }
        return try await withTaskExecutorPreference(BlockingWorkExecutor.shared, isolation: nil) { @concurrent in try work() }
    }
}
