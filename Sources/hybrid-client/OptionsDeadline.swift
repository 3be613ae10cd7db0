import Foundation
import HybridClient
import HybridDeadline

/// `--timeout` limits the whole call, reading and parsing the options file included: a huge or
/// endless options file must not hold the client past it.
enum OptionsDeadline {
    /// Reading and parsing the options did not finish within the limit.
    struct TimedOut: Error, Equatable {
        let limit: Duration
        var description: String { "timed out after \(limit.formattedSeconds) reading and parsing the options" }
    }

    /// Runs `work` (blocking and not cancellable: file reads and JSON decoding) on a thread of its
    /// own and returns its result, or throws ``TimedOut`` once `limit` has passed on `clock`; the
    /// work is then abandoned (the process is about to exit).
    static func run<T: Sendable, C: Clock<Duration>>(
        within limit: Duration, clock: C = ContinuousClock(), _ work: @escaping () throws -> T
    ) async throws -> T {
        let box = UncheckedBox(work)
        return try await withTimeLimit(limit, on: clock, throwing: TimedOut(limit: limit)) {
            try await onThreadOfItsOwn { try box.value() }
        }
    }

    /// Runs `work` on a new thread and returns its result, or throws `CancellationError` as soon
    /// as the task is cancelled, leaving the thread to finish alone.
    private static func onThreadOfItsOwn<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let outcome = FirstOutcome<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                outcome.install(continuation)
                Thread { outcome.resume(with: Result { try work() }) }.start()
            }
        } onCancel: {
            outcome.resume(with: .failure(CancellationError()))
        }
    }
}

/// A continuation resumed by whichever outcome comes first, also one that came before the
/// continuation was installed (a cancellation).
private final class FirstOutcome<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var early: Result<T, any Error>?
    private var resumed = false

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        let early: Result<T, any Error>? = lock.withLock {
            guard let early = self.early else {
                self.continuation = continuation
                return nil
            }
            return early
        }
        if let early { continuation.resume(with: early) }
    }

    func resume(with result: Result<T, any Error>) {
        let continuation: CheckedContinuation<T, any Error>? = lock.withLock {
            guard !resumed else { return nil }
            resumed = true
            guard let continuation = self.continuation else {
                early = result
                return nil
            }
            self.continuation = nil
            return continuation
        }
        continuation?.resume(with: result)
    }
}

/// Carries the non-Sendable parse closure to its thread; only that thread ever calls it.
private struct UncheckedBox<V>: @unchecked Sendable {
    let value: V
    init(_ value: V) { self.value = value }
}
