import Foundation
@_spi(ExperimentalCustomExecutors) import _Concurrency

/// The executors a program installs with ``runOnQuietExecutors(_:)``: ``QuietMainExecutor`` and
/// a ``QuietTaskExecutor`` with a worker per processor (at least two).
package enum QuietExecutorFactory: ExecutorFactory {
    package static let mainExecutor: any MainExecutor = QuietMainExecutor()
    package static let defaultExecutor: any TaskExecutor = QuietTaskExecutor(
        workers: max(ProcessInfo.processInfo.activeProcessorCount, 2))
}

/// Makes ``QuietExecutorFactory``'s executors Swift concurrency's main and default executors,
/// runs `body` as the first task and exits with status 0 when it returns. Call it from a
/// synchronous `static func main()`, before anything starts a task: the executors can be
/// chosen only once, before the first job. (`body` ends the process itself on failure, as
/// ArgumentParser's `main()` does.)
package func runOnQuietExecutors(_ body: @escaping @Sendable () async -> Void) -> Never {
    _createExecutors(factory: QuietExecutorFactory.self)
    Task {
        await body()
        exit(0)
    }
    do {
        try QuietExecutorFactory.mainExecutor.run()
    } catch {
        FileHandle.standardError.write(Data("the main executor stopped: \(error)\n".utf8))
        exit(70)
    }
    exit(0)
}
