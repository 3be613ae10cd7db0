import Dispatch
import Foundation
import Synchronization

/// Thrown when SIGINT (Ctrl-C) or SIGTERM cancelled the operation.
package struct Interrupted: Error {
    package init() {}
}

/// Runs `body`; the first SIGINT or SIGTERM cancels it and, once it has unwound, throws
/// ``Interrupted``; a second signal exits at once with status 130 (128 + SIGINT, as shells report it).
///
/// The first signal cancels rather than exits because what `body` holds outlives the process unless
/// it is undone: a Bluetooth adapter left advertising, an open tunnel, a QR image on disk (whoever
/// reads it can answer the ceremony), a FIDO device under /dev/uhid. Task cancellation lets `body`
/// undo each on its way out. A second signal exits because that unwinding can itself hang (a
/// controller that no longer answers), and a user who presses Ctrl-C twice wants the prompt back.
/// `Interrupted` is thrown even when `body` returns after the signal, so a caller can tell an
/// interrupted run from one that finished.
package func cancellingOnInterrupt<Result: Sendable>(
    _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    let (interrupts, continuation) = AsyncStream<Void>.makeStream()
    let count = SignalCount()
    // A queue of its own, not a global one: the first job on a global queue starts libdispatch's
    // once-a-second worker monitor, and the program would never be quiet again.
    let queue = DispatchQueue(label: "signal-cancellation")
    let sources = [SIGINT, SIGTERM].map { number in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler {
            if count.increment() > 1 {
                FileHandle.standardError.write(Data("\ninterrupted again: exiting now\n".utf8))
                _exit(130)
            }
            continuation.yield()
        }
        source.resume()
        return source
    }
    defer {
        for source in sources { source.cancel() }
        continuation.finish()
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
    return try await cancelling(on: interrupts, throwing: Interrupted(), body)
}

/// Runs `body`; the first element of `triggers` cancels it (structured: `body` sees task
/// cancellation and unwinds) and then throws `error`.
package func cancelling<Result: Sendable>(
    on triggers: AsyncStream<Void>, throwing error: some Error, _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    try await withThrowingTaskGroup(of: Result?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            for await _ in triggers { throw error }
            return nil
        }
        defer { group.cancelAll() }
        while let next = try await group.next() {
            if let result = next { return result }
        }
        throw CancellationError()
    }
}

/// How many signals arrived.
private final class SignalCount: Sendable {
    private let value = Mutex(0)

    func increment() -> Int {
        value.withLock { value in
            value += 1
            return value
        }
    }
}
