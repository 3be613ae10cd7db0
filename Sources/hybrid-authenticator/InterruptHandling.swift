import Dispatch
import Foundation
import Synchronization

/// Ctrl-C handling: SIGINT or SIGTERM cancels the running work (which switches advertising off
/// and closes the tunnel); a second signal exits at once with status 130.
enum InterruptHandling {
    static func cancellingOnSignal<Result: Sendable>(
        _ body: @escaping @Sendable () async throws -> Result
    ) async throws -> Result {
        let (signals, continuation) = AsyncStream<Int32>.makeStream()
        let count = SignalCount()
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if count.increment() > 1 {
                    Console.writeError("\ninterrupted again: exiting now\n")
                    _exit(130)
                }
                continuation.yield(number)
            }
            source.resume()
            return source
        }
        defer {
            for source in sources { source.cancel() }
            continuation.finish()
        }
        return try await withThrowingTaskGroup(of: Result?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                for await _ in signals { return nil }
                return nil
            }
            defer { group.cancelAll() }
            while let result = try await group.next() {
                guard let result else {
                    // Interrupted (or the signal watcher ended): cancel the work and wait for it.
                    group.cancelAll()
                    continue
                }
                return result
            }
            throw CancellationError()
        }
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
