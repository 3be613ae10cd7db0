/// Work that a synchronous callback (a window's Cancel on the GTK thread, an event to show)
/// starts: ``run()``, a task of the command's task group, runs each job as its child, so every
/// job ends with the program's structure (cancelled with it) instead of as a task nobody owns.
final class ChildTasks: Sendable {
    private let jobs: AsyncStream<@Sendable () async -> Void>
    private let sink: AsyncStream<@Sendable () async -> Void>.Continuation

    init() {
        (jobs, sink) = AsyncStream.makeStream()
    }

    /// Runs `job` as a child of ``run()`` (not at all once ``run()`` has ended).
    func start(_ job: @escaping @Sendable () async -> Void) {
        sink.yield(job)
    }

    /// Runs every job started, until this task is cancelled; the jobs still running are cancelled
    /// then and awaited.
    func run() async {
        await withTaskGroup(of: Void.self) { group in
            for await job in jobs {
                group.addTask { await job() }
            }
            group.cancelAll()
        }
    }
}
