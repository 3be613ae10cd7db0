import CUHID
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Why the uhid device could not be created or used.
public enum UHIDError: Error, Sendable, CustomStringConvertible {
    case open(errno: Int32)
    case create(errno: Int32)
    case write(errno: Int32)
    case read(errno: Int32)

    /// A message naming the failed step and the system error, with a hint for EACCES and ENOENT.
    public var description: String {
        switch self {
        case .open(let code):
            "cannot open the uhid device: \(String(cString: strerror(code)))"
                + (code == EACCES ? " (install deploy/security-key/70-hybrid-security-key.rules, or run as root)" : "")
                + (code == ENOENT ? " (load the uhid kernel module: modprobe uhid)" : "")
        case .create(let code): "UHID_CREATE2 failed: \(String(cString: strerror(code)))"
        case .write(let code): "writing to /dev/uhid failed: \(String(cString: strerror(code)))"
        case .read(let code): "reading /dev/uhid failed: \(String(cString: strerror(code)))"
        }
    }
}

/// A virtual FIDO HID device on /dev/uhid: created with UHID_CREATE2 and the FIDO report
/// descriptor, removed by ``destroy()`` (also on deinit; closing the descriptor removes it too,
/// so the kernel cleans up even after a crash). Events arrive on ``events`` from a reader thread.
public final class UHIDDevice: Sendable {
    /// The device's identity as the host sees it.
    public struct Identity: Sendable {
        /// The device name hosts show (`HID_NAME`).
        public var name = "Hybrid security key (your phone, via FIDO hybrid)"
        /// USB, so that every host's FIDO discovery lists it like a plugged-in key.
        public var bus: UInt16 = CUHID_bus_usb()
        /// pid.codes (open-source hardware) vendor, test product 0x0001: no real device's ID.
        public var vendor: UInt32 = 0x1209
        /// The product ID (pid.codes test product 0x0001).
        public var product: UInt32 = 0x0001
        /// The device version (BCD: 1.00).
        public var version: UInt32 = 0x0100
        /// Unique per process, so that the hidraw node can be found (`HID_UNIQ`).
        public var uniq = "hybrid-security-key-\(getpid())"
        /// The physical path string (`HID_PHYS`).
        public var phys = "hybrid-security-key"

        /// The default identity (a USB device with the pid.codes test IDs).
        public init() {}
    }

    /// The identity the device was created with.
    public let identity: Identity
    /// The device's events (start, open, output reports, …), in the order /dev/uhid delivered them.
    public let events: AsyncStream<UHIDEvent>
    private let node: UHIDNode
    private let state = DeviceState()

    /// Opens /dev/uhid (or `path`) and creates the device.
    public init(identity: Identity = .init(), path: String = "/dev/uhid") throws(UHIDError) {
        let node = try UHIDNode(identity: identity, path: path, nonBlocking: true)
        self.identity = identity
        self.node = node
        let (stream, continuation) = AsyncStream<UHIDEvent>.makeStream()
        self.events = stream
        let state = self.state
        let reader = Thread {
            Self.readLoop(node: node, state: state, continuation: continuation)
        }
        reader.name = "uhid-reader"
        reader.start()
    }

    deinit {
        destroy()
        node.close()
    }

    /// Sends one 64-byte input report to the host.
    public func send(_ report: [UInt8]) throws(UHIDError) {
        try node.send(report)
    }

    /// Removes the device (idempotent) and stops the reader.
    public func destroy() {
        let first = state.value.withLock { state in
            defer { state = (true, true) }
            return !state.destroyed
        }
        if first { node.destroy() }
    }

    /// The /dev/hidrawN node of this device, once the kernel made it (nil before or if unknown).
    public func hidrawPath(sysfs: String = "/sys/class/hidraw") -> String? {
        hidrawNode(uniq: identity.uniq, sysfs: sysfs)?.path
    }

    /// Reads events until ``destroy()``. uhid has no flow control: the host's writes queue in the
    /// kernel (UHID_BUFSIZE, 32 events) and what does not fit is dropped ("Output queue is full"),
    /// while a host sends a long request (a 64-ID allow list is ~60 reports) without waiting. So
    /// after each wake-up the loop drains the queue with non-blocking reads, one syscall per
    /// event, and polls again only when it is empty.
    private static func readLoop(node: UHIDNode, state: DeviceState, continuation: AsyncStream<UHIDEvent>.Continuation)
    {
        defer { continuation.finish() }
        while !state.value.withLock({ $0.stop }) {
            var entry = pollfd(fd: node.descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 100)
            if ready < 0 && errno != EINTR { return }
            guard ready > 0 else { continue }
            do {
                while let event = try node.readEvent() { continuation.yield(event) }
            } catch {
                return
            }
        }
    }
}

/// Shared between the device and its reader thread.
private final class DeviceState: Sendable {
    let value: Mutex<(destroyed: Bool, stop: Bool)> = Mutex((false, false))
}
