/// Runs `body` in a child task next to a timer; if the timer fires first, `body` is cancelled
/// and `error` is thrown. `limit` nil means no limit.
func withTimeLimit<Result: Sendable>(
    _ limit: Duration?,
    throwing error: AuthenticatorRunnerError,
    _ body: @escaping @Sendable () async throws -> Result
) async throws -> Result {
    guard let limit else { return try await body() }
    return try await withThrowingTaskGroup(of: Result.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw error
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        return first
    }
}

/// Waits until `signal` yields or finishes, or throws `error` after `limit`.
func waitForSignal(_ signal: AsyncStream<Void>, within limit: Duration, throwing error: AuthenticatorRunnerError)
    async throws
{
    try await withTimeLimit(limit, throwing: error) {
        for await _ in signal { return }
    }
}
