import CUHID
import Foundation
import HybridThreads
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A thread that does nothing but drain one descriptor into a bounded queue of our own, so that a
/// queue the kernel keeps short (uhid: 32 events, the rest dropped) never fills while the consumer
/// is busy or the machine is loaded.
///
/// The thread blocks in `poll(2)` on the descriptor and an eventfd, with no timeout: while nothing
/// arrives it never wakes. After each wake-up it reads until `read` says the descriptor is empty
/// (a non-blocking descriptor), then goes back to sleep; ``stop()`` writes the eventfd. Elements
/// that do not fit in the queue are dropped and counted (``droppedCount``).
package final class DescriptorDrain<Element: Sendable>: Sendable {
    /// What the thread read, in order; finishes when the thread ends.
    package let elements: AsyncStream<Element>
    private let wake: EventCounter
    private let counters = Counters()

    /// Starts the thread.
    /// - Parameters:
    ///   - name: the thread's name (`ps -L`, `/proc/PID/task/*/comm`).
    ///   - descriptor: polled for `POLLIN`; the caller keeps it open until `onFinish` ran.
    ///   - capacity: how many elements the queue holds before it drops new ones.
    ///   - raisePriority: whether the thread raises its own priority (real-time if permitted,
    ///     else nice -10, else unchanged).
    ///   - read: reads one element without blocking; `nil` when the descriptor is empty. A throw
    ///     (the descriptor failed) ends the thread.
    ///   - onFinish: runs on the thread after its last read (closing the descriptor, say).
    /// - Throws: ``UHIDError/read(errno:)`` when no eventfd can be made.
    package init(
        name: String, descriptor: Int32, capacity: Int, raisePriority: Bool,
        read: @escaping @Sendable () throws -> Element?, onFinish: @escaping @Sendable () -> Void = {}
    ) throws(UHIDError) {
        let wake = try EventCounter()
        self.wake = wake
        let (stream, continuation) = AsyncStream.makeStream(
            of: Element.self, bufferingPolicy: .bufferingOldest(capacity))
        elements = stream
        let counters = self.counters
        let thread = Thread {
            nameCurrentThread(name)
            let priority: ReaderPriority =
                switch raisePriority ? CUHID_raise_thread_priority(-10) : 0 {
                case 2: .realTime
                case 1: .nice
                default: .unchanged
                }
            counters.value.withLock { $0.priority = priority }
            Self.drain(descriptor: descriptor, wake: wake, read: read) { element in
                if case .dropped = continuation.yield(element) { counters.value.withLock { $0.dropped += 1 } }
            }
            onFinish()
            continuation.finish()
        }
        thread.start()
    }

    /// Ends the thread (it finishes the read in progress first). Idempotent, from any thread.
    package func stop() {
        wake.signal()
    }

    /// How many elements did not fit in the queue.
    package var droppedCount: Int { counters.value.withLock { $0.dropped } }

    /// How the thread's priority was raised; `nil` until the thread has started.
    package var priority: ReaderPriority? { counters.value.withLock { $0.priority } }

    private static func drain(
        descriptor: Int32, wake: EventCounter, read: () throws -> Element?, deliver: (Element) -> Void
    ) {
        while true {
            var entries = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.descriptor, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&entries, 2, -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            let device = entries[0].revents
            if device & Int16(POLLIN) != 0 {
                do {
                    while let element = try read() { deliver(element) }
                } catch {
                    return
                }
            } else if device & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 {
                // Nothing to read and never will be: stop rather than wake again at once.
                return
            }
            if entries[1].revents != 0 { return }
        }
    }
}

/// Shared between the drain and its thread.
private final class Counters: Sendable {
    let value = Mutex<(dropped: Int, priority: ReaderPriority?)>((0, nil))
}

/// How a reader thread's scheduling priority was raised (``DescriptorDrain``).
package enum ReaderPriority: Sendable, Equatable {
    /// Not raised (not asked, or not permitted).
    case unchanged
    /// Nice -10 for the thread alone.
    case nice
    /// SCHED_FIFO, real-time priority 1.
    case realTime
}

/// An eventfd: a counter a thread polls beside its descriptor, written to wake it. Once written it
/// stays readable (it is never read), so every later poll returns at once.
private final class EventCounter: Sendable {
    let descriptor: Int32

    init() throws(UHIDError) {
        let fd = CUHID_eventfd()
        guard fd >= 0 else { throw .read(errno: -fd) }
        descriptor = fd
    }

    deinit {
        close(descriptor)
    }

    func signal() {
        var one: UInt64 = 1
        _ = write(descriptor, &one, MemoryLayout<UInt64>.size)
    }
}
