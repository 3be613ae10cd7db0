import Foundation
@_spi(ExperimentalCustomExecutors) import _Concurrency

/// The main actor's executor beside ``QuietTaskExecutor``: the main thread runs the main actor's
/// jobs in order and otherwise sleeps on a condition variable.
package final class QuietMainExecutor: MainExecutor, @unchecked Sendable {
    private let ready = ReadyJobs()

    package init() {}

    package func enqueue(_ job: consuming ExecutorJob) {
        ready.append(UnownedJob(job))
    }

    /// Runs the main actor's jobs on the calling thread (the main thread) until ``stop()``.
    package func run() throws {
        ready.runUntilStopped { job in job.runSynchronously(on: asUnownedSerialExecutor()) }
    }

    package func stop() {
        ready.stop()
    }

    package var isMainExecutor: Bool { true }

    package func checkIsolated() {
        precondition(Thread.isMainThread, "QuietMainExecutor: main-actor code off the main thread")
    }
}
