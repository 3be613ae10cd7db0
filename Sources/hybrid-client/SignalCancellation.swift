import Dispatch
import Foundation

/// Thrown when SIGINT (Ctrl-C) cancelled the operation.
struct Interrupted: Error {}

/// Runs `body`; SIGINT cancels it (structured: `body` sees task cancellation and unwinds, so
/// scanning stops and the tunnel closes) and then throws ``Interrupted``.
func cancellingOnInterrupt<Result: Sendable>(
    _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    signal(SIGINT, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
    let (interrupts, continuation) = AsyncStream<Void>.makeStream()
    source.setEventHandler { continuation.yield() }
    source.resume()
    defer {
        source.cancel()
        continuation.finish()
        signal(SIGINT, SIG_DFL)
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
