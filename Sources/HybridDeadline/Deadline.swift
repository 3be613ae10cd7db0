/// Runs `body` with a deadline on `clock`: if `body` is still running at `deadline`, `onExpiry`
/// runs, and it must make `body` return (close the channel or connection that `body` waits on:
/// a read blocked in NIO or the kernel does not end on cancellation alone).
///
/// The timer is a child task, cancelled as soon as `body` returns, so nothing outlives the call.
/// `onExpiry` runs at most once, and may race with `body` returning on its own: it should do only
/// what is harmless then (closing what is already closed is).
///
/// `deadline` nil means no deadline: `body` just runs.
///
/// - Returns: `body`'s result, and whether the deadline passed (so `onExpiry` ran) first.
/// - Throws: what `body` throws.
package func withDeadline<C: Clock, Result, Failure: Error>(
    _ deadline: C.Instant?,
    on clock: C,
    onExpiry: @escaping @Sendable () async -> Void,
    _ body: () async throws(Failure) -> Result
) async throws(Failure) -> (result: Result, expired: Bool) {
    guard let deadline else { return (try await body(), false) }
    let outcome: Swift.Result<(Result, Bool), Failure> = await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            guard (try? await clock.sleep(until: deadline, tolerance: nil)) != nil else { return false }
            await onExpiry()
            return true
        }
        let result: Swift.Result<Result, Failure>
        do throws(Failure) {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        group.cancelAll()
        let expired = await group.next() ?? false
        return result.map { ($0, expired) }
    }
    return try outcome.get()
}

/// ``withDeadline(_:on:onExpiry:_:)`` with the deadline `limit` from now on `clock`.
package func withDeadline<C: Clock, Result, Failure: Error>(
    after limit: C.Duration,
    on clock: C,
    onExpiry: @escaping @Sendable () async -> Void,
    _ body: () async throws(Failure) -> Result
) async throws(Failure) -> (result: Result, expired: Bool) {
    try await withDeadline(clock.now.advanced(by: limit), on: clock, onExpiry: onExpiry, body)
}

/// Runs `body` in a child task with a time limit on `clock`: if it has not returned after `limit`,
/// it is cancelled and `error` is thrown. For work that ends on cancellation; work blocked on a
/// channel is ended by closing it instead (``withDeadline(_:on:onExpiry:_:)``). `limit` nil means
/// no limit.
///
/// - Throws: what `body` throws, `error` past the limit, or `CancellationError`.
package func withTimeLimit<C: Clock, Result: Sendable>(
    _ limit: C.Duration?,
    on clock: C,
    throwing error: any Error,
    _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    guard let limit else { return try await body() }
    return try await withThrowingTaskGroup(of: Result.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await clock.sleep(for: limit)
            throw error
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        return first
    }
}
