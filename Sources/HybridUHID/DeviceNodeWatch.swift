import Foundation
import HybridThreads

#if canImport(Glibc)
    import Glibc
#endif

/// New entries in /dev, from inotify: the kernel's devtmpfs creates a hidraw node after the
/// device's sysfs entry and before its uevent, and inotify reports the creation. Whoever waits for
/// a new device's node polls ``descriptor`` (readable when something was created or changed) and
/// looks again, instead of looking on a timer.
package final class DeviceNodeWatch {
    /// How long the kernel (and udev) get to make a new device's hidraw node.
    package static let hidrawDeadline: Duration = .seconds(3)

    /// Poll this for `POLLIN`; call ``drain()`` when it is readable.
    package let descriptor: Int32

    /// Watches `directory` for created entries and attribute changes (udev's chmod).
    /// - Throws: ``UHIDError/open(errno:)`` when inotify cannot be set up.
    package init(directory: String = "/dev") throws(UHIDError) {
        let fd = inotify_init1(Int32(IN_CLOEXEC) | Int32(IN_NONBLOCK))
        guard fd >= 0 else { throw .open(errno: errno) }
        guard inotify_add_watch(fd, directory, UInt32(IN_CREATE) | UInt32(IN_ATTRIB)) >= 0 else {
            let code = errno
            close(fd)
            throw .open(errno: code)
        }
        descriptor = fd
    }

    deinit {
        close(descriptor)
    }

    /// Reads what inotify queued, so that the descriptor is quiet until the next change.
    package func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Blocks until `find` returns a value or `deadline` passes, looking again each time /dev
    /// changes (never on a timer): at most one look per change, and one when the deadline comes.
    package func wait<Found>(until deadline: ContinuousClock.Instant, for find: () -> Found?) -> Found? {
        while true {
            if let found = find() { return found }
            guard deadline > .now else { return nil }
            var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Self.pollMilliseconds(until: deadline))
            if ready < 0 && errno != EINTR { return find() }
            if ready > 0 { drain() }
        }
    }

    /// Milliseconds from now until `deadline`, rounded up (0 once it has passed), for `poll(2)`.
    package static func pollMilliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let (seconds, attoseconds) = (deadline - .now).components
        return max(0, Int32(clamping: seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000))
    }

    /// The hidraw node of the device whose `HID_UNIQ` is `uniq`, waiting up to `within` for the
    /// kernel to make it, on a thread of its own (the wait blocks). `nil` if it did not come.
    package static func hidrawPath(uniq: String, within: Duration = hidrawDeadline) async -> String? {
        let deadline = ContinuousClock.now + within
        return await withCheckedContinuation { continuation in
            let thread = Thread {
                nameCurrentThread("hidraw-wait")
                let find = { hidrawNode(uniq: uniq).map(\.path).flatMap { access($0, F_OK) == 0 ? $0 : nil } }
                guard let watch = try? DeviceNodeWatch() else { return continuation.resume(returning: find()) }
                continuation.resume(returning: watch.wait(until: deadline, for: find))
            }
            thread.start()
        }
    }
}
