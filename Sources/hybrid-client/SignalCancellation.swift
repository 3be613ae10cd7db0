import Dispatch
import Foundation

/// Thrown when SIGINT (Ctrl-C) or SIGTERM cancelled the operation.
struct Interrupted: Error {}

/// Runs `body`; SIGINT or SIGTERM cancels it (structured: `body` sees task cancellation and
/// unwinds, so scanning stops, the tunnel closes and the QR image is deleted) and then throws
/// ``Interrupted``.
func cancellingOnInterrupt<Result: Sendable>(
    _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    let (interrupts, continuation) = AsyncStream<Void>.makeStream()
    let sources = [SIGINT, SIGTERM].map { number in
        signal(number, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { continuation.yield() }
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

/// Runs `body`; the first element of `triggers` cancels it (structured, as above) and then
/// throws `error`.
func cancelling<Result: Sendable>(
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
