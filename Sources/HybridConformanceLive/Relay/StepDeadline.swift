import Synchronization

/// Bounds a step that waits on a peer: if `body` has not returned after `limit`, `onExpiry` runs
/// (it closes the connection `body` waits on, which makes `body` return). A conforming relay never
/// reaches the limit; it only stops a broken one from hanging the run.
func withStepDeadline<Result>(
    _ limit: Duration,
    onExpiry: @escaping @Sendable () async -> Void,
    _ body: () async throws -> Result
) async rethrows -> (result: Result, expired: Bool) {
    let expired = ExpiryFlag()
    let timer = Task {
        try await Task.sleep(for: limit)
        expired.set()
        await onExpiry()
    }
    defer { timer.cancel() }
    let result = try await body()
    return (result, expired.isSet)
}

/// Set once, when a step's deadline passed.
private final class ExpiryFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
