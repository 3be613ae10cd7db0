import Foundation
import HybridThreads
@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) import _Concurrency

/// Swift concurrency's default executor for a program that runs all day: worker threads that
/// sleep on a condition variable until a job arrives, and one timer thread that sleeps until the
/// earliest deadline a `Task.sleep` asked for. With no job and no deadline, no thread wakes.
///
/// Why not the platform's: on Linux the default executor is libdispatch's thread pool, whose first
/// worker starts a monitor that wakes once a second for the rest of the process's life
/// (`_dispatch_workq_init_once`, swift-corelibs-libdispatch `src/event/workqueue.c`); a
/// daemon built on it is never quiet (`scripts/bench-security-key.sh idle` measures it).
///
/// Deadlines of `ContinuousClock` and `SuspendingClock` are kept on `SuspendingClock`
/// (CLOCK_MONOTONIC, which stops while the system is suspended): a `ContinuousClock` deadline
/// pending across a suspend fires late by the time the system slept. Other clocks' deadlines are
/// turned into a delay from their `now` when they arrive. Jobs run in the order they arrive;
/// priorities are not honoured (a daemon's few tasks do not compete).
package final class QuietTaskExecutor: TaskExecutor, SchedulingExecutor, @unchecked Sendable {
    private let ready = ReadyJobs()
    private let timerLock = ThreadLock()
    private let deadlinesChanged = ThreadCondition()
    // Guarded by `timerLock`.
    private var timers = DeadlineHeap<SuspendingClock.Instant, UnownedJob>()

    /// Starts `workers` threads (at least one) and the timer thread. They hold the executor and
    /// never end: it lives as long as the process.
    package init(workers: Int) {
        for index in 0..<max(workers, 1) {
            start(name: "quiet-worker-\(index)") { [self] in
                ready.runUntilStopped { job in job.runSynchronously(on: asUnownedTaskExecutor()) }
            }
        }
        start(name: "quiet-timers") { [self] in runTimers() }
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        ready.append(UnownedJob(job))
    }

    package func enqueue<C: Clock>(
        _ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration?, clock: C
    ) {
        schedule(UnownedJob(job), dueAt: Self.suspendingInstant(instant, of: clock))
    }

    package func enqueue<C: Clock>(
        _ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration?, clock: C
    ) {
        schedule(UnownedJob(job), dueAt: Self.suspendingInstant(clock.now.advanced(by: delay), of: clock))
    }

    private func schedule(_ job: UnownedJob, dueAt deadline: SuspendingClock.Instant) {
        let isEarliest = timerLock.withLock {
            timers.insert(job, dueAt: deadline)
            return timers.earliestDeadline == deadline
        }
        if isEarliest { deadlinesChanged.signal() }
    }

    private static func suspendingInstant<C: Clock>(_ instant: C.Instant, of clock: C) -> SuspendingClock.Instant {
        if let instant = instant as? SuspendingClock.Instant { return instant }
        guard let delay = clock.now.duration(to: instant) as? Duration else {
            preconditionFailure("QuietTaskExecutor: a deadline on \(C.self), whose Duration is not Swift.Duration")
        }
        return SuspendingClock.now.advanced(by: delay)
    }

    private func runTimers() {
        timerLock.lock()
        while true {
            let due = timers.removeDue(at: SuspendingClock.now)
            if !due.isEmpty {
                timerLock.unlock()
                ready.append(contentsOf: due)
                timerLock.lock()
            } else if let next = timers.earliestDeadline {
                deadlinesChanged.wait(releasing: timerLock, until: next)
            } else {
                deadlinesChanged.wait(releasing: timerLock)
            }
        }
    }

    private func start(name: String, _ body: @escaping @Sendable () -> Void) {
        Thread {
            // Named from inside (what `top -H` and the idle bench show).
            nameCurrentThread(name)
            body()
        }.start()
    }
}
