#if canImport(Glibc)
    import Glibc
#endif

/// A level-triggered "please stop" flag that a blocking thread can `poll(2)` on together with its
/// socket: a non-blocking socketpair whose read end becomes readable once ``signal()`` was called.
final class WakeSignal: Sendable {
    /// Poll this for `POLLIN`; it never becomes unreadable again once signalled (we never drain it).
    let pollDescriptor: Int32
    private let writeDescriptor: Int32

    /// - Throws: ``BluetoothError/systemCallFailed(operation:errno:)`` if no descriptors are left.
    init() throws {
        var fds: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        guard socketpair(AF_UNIX, type, 0, &fds) == 0 else {
            throw BluetoothError.systemCallFailed(operation: "socketpair", errno: errno)
        }
        pollDescriptor = fds[0]
        writeDescriptor = fds[1]
    }

    deinit {
        close(pollDescriptor)
        close(writeDescriptor)
    }

    /// Requests a stop. Safe from any thread, any number of times.
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeDescriptor, &byte, 1)
    }

    /// Whether ``signal()`` has been called (does not block).
    var isSignalled: Bool {
        var entry = pollfd(fd: pollDescriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, 0) > 0
    }

    /// Blocks until `descriptor` is readable (`true`) or this is signalled (`false`), with no
    /// wake-up in between.
    ///
    /// - Throws: ``BluetoothError/systemCallFailed(operation:errno:)`` naming `operation` if `poll` fails.
    func waitUntilReadable(_ descriptor: Int32, operation: String) throws(BluetoothError) -> Bool {
        var descriptors = [
            pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: pollDescriptor, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            let ready = poll(&descriptors, 2, -1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { throw .systemCallFailed(operation: operation, errno: errno) }
            return descriptors[1].revents == 0
        }
    }

    /// Blocks until signalled or `milliseconds` pass; returns `true` if signalled.
    func wait(milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: pollDescriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let result = poll(&entry, 1, milliseconds)
            if result >= 0 { return result > 0 }
            if errno != EINTR { return true }
        }
    }
}
