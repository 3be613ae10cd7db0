import Foundation
import HybridClient

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
        let outcome = FirstOutcome<T>()
        let box = UncheckedBox(work)
        return try await withCheckedThrowingContinuation { continuation in
            outcome.install(continuation)
            let timer = Task {
                try? await clock.sleep(for: limit)
                if !Task.isCancelled { outcome.resume(with: .failure(TimedOut(limit: limit))) }
            }
            Thread {
                outcome.resume(with: Result { try box.value() })
                timer.cancel()
            }.start()
        }
    }
}

/// A continuation resumed by whichever outcome comes first.
private final class FirstOutcome<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?

    func install(_ continuation: CheckedContinuation<T, any Error>) {
        lock.withLock { self.continuation = continuation }
    }

    func resume(with result: Result<T, any Error>) {
        let continuation: CheckedContinuation<T, any Error>? = lock.withLock {
            defer { self.continuation = nil }
            return self.continuation
        }
        continuation?.resume(with: result)
    }
}

/// Carries the non-Sendable parse closure to its thread; only that thread ever calls it.
private struct UncheckedBox<V>: @unchecked Sendable {
    let value: V
    init(_ value: V) { self.value = value }
}
