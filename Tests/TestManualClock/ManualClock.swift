import Foundation

/// A clock that moves only when a test advances it, so that a timeout fires when the test has seen
/// what it waits for, never because a loaded machine was slow.
package final class ManualClock: Clock, @unchecked Sendable {
    package struct Instant: InstantProtocol {
        package var offset: Duration
        package func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        package func duration(to other: Instant) -> Duration { other.offset - offset }
        package static func < (a: Instant, b: Instant) -> Bool { a.offset < b.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private let lock = NSLock()
    private var current = Instant(offset: .zero)
    private var sleepers: [UUID: Sleeper] = [:]
    /// Tasks waiting until at least `count` sleepers sleep.
    private var sleeperWaiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    package init() {}

    package var now: Instant { lock.withLock { current } }
    package var minimumResolution: Duration { .zero }

    package func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = UUID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let waiters: [CheckedContinuation<Void, Never>]? = lock.withLock {
                    if deadline <= current || Task.isCancelled { return nil }
                    sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    let ready = sleeperWaiters.filter { $0.count <= sleepers.count }
                    sleeperWaiters.removeAll { $0.count <= sleepers.count }
                    return ready.map(\.continuation)
                }
                guard let waiters else {
                    Task.isCancelled ? continuation.resume(throwing: CancellationError()) : continuation.resume()
                    return
                }
                for waiter in waiters { waiter.resume() }
            }
        } onCancel: {
            lock.withLock { sleepers.removeValue(forKey: id) }?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Returns once at least `count` tasks sleep on this clock at the same time.
    package func sleeperArrived(count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = lock.withLock {
                if sleepers.count >= count { return true }
                sleeperWaiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Moves the clock on and wakes every sleeper whose deadline has come.
    package func advance(by duration: Duration) {
        let due: [Sleeper] = lock.withLock {
            current = current.advanced(by: duration)
            let due = sleepers.filter { $0.value.deadline <= current }
            for key in due.keys { sleepers.removeValue(forKey: key) }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }
}
