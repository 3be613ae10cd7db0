/// The result of `body`, a value or the error it threw, so that a task group can collect both.
package func capture<T: Sendable>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}
