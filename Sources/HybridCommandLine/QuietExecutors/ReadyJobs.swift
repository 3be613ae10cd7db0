/// Jobs ready to run, first in first out, and the threads that run them: each runner sleeps on a
/// condition variable until a job arrives or ``stop()`` is called.
final class ReadyJobs: @unchecked Sendable {
    private let lock = ThreadLock()
    private let jobArrived = ThreadCondition()
    // Guarded by `lock`.
    private var incoming: [UnownedJob] = []
    private var outgoing: [UnownedJob] = []
    private var isStopped = false

    func append(_ job: UnownedJob) {
        lock.withLock { incoming.append(job) }
        jobArrived.signal()
    }

    func append(contentsOf jobs: [UnownedJob]) {
        lock.withLock { incoming.append(contentsOf: jobs) }
        for _ in jobs { jobArrived.signal() }
    }

    /// Runs jobs on the calling thread, oldest first, with `run`, until ``stop()``.
    func runUntilStopped(_ run: (UnownedJob) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        while !isStopped {
            guard let job = takeOldest() else {
                jobArrived.wait(releasing: lock)
                continue
            }
            lock.unlock()
            run(job)
            lock.lock()
        }
    }

    /// Ends every ``runUntilStopped(_:)`` once its current job is done.
    func stop() {
        lock.withLock { isStopped = true }
        jobArrived.broadcast()
    }

    private func takeOldest() -> UnownedJob? {
        if outgoing.isEmpty {
            outgoing = incoming.reversed()
            incoming.removeAll(keepingCapacity: true)
        }
        return outgoing.popLast()
    }
}
