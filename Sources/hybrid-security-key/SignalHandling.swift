import Dispatch
import Foundation

/// SIGINT and SIGTERM end `body` (by task cancellation), so the device is destroyed on the way out.
enum SignalHandling {
    static func untilInterrupted(_ body: @escaping @Sendable () async -> Void) async throws {
        let (signals, continuation) = AsyncStream<Int32>.makeStream()
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
        defer {
            for source in sources { source.cancel() }
            continuation.finish()
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await body() }
            group.addTask { for await _ in signals { return } }
            await group.next()
            group.cancelAll()
        }
    }
}
