import Glibc

/// A pthread mutex and the condition variables that wait on it, for the executors' own threads.
/// Timed waits run on CLOCK_MONOTONIC, the clock of `SuspendingClock`.
final class ThreadLock: @unchecked Sendable {
    fileprivate let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init() {
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    func lock() { pthread_mutex_lock(mutex) }

    func unlock() { pthread_mutex_unlock(mutex) }

    func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        lock()
        defer { unlock() }
        return try body()
    }
}

/// A condition variable of a ``ThreadLock``; every wait is called with that lock held.
final class ThreadCondition: @unchecked Sendable {
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    init() {
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
    }

    /// Sleeps until signalled (or woken spuriously: callers loop on their own condition).
    func wait(releasing lock: ThreadLock) {
        pthread_cond_wait(condition, lock.mutex)
    }

    /// Sleeps until signalled or until `deadline` has passed on `SuspendingClock`.
    func wait(releasing lock: ThreadLock, until deadline: SuspendingClock.Instant) {
        var wakeAt = timespec()
        clock_gettime(CLOCK_MONOTONIC, &wakeAt)
        let remaining = max(SuspendingClock.now.duration(to: deadline), .zero).components
        let nanoseconds = Int64(wakeAt.tv_nsec) + remaining.attoseconds / 1_000_000_000
        wakeAt.tv_sec += Int(remaining.seconds + nanoseconds / 1_000_000_000)
        wakeAt.tv_nsec = Int(nanoseconds % 1_000_000_000)
        pthread_cond_timedwait(condition, lock.mutex, &wakeAt)
    }

    func signal() { pthread_cond_signal(condition) }

    func broadcast() { pthread_cond_broadcast(condition) }
}
