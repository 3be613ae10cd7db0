import CUHID
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Why the uhid device could not be created or used.
package enum UHIDError: Error, Sendable, CustomStringConvertible {
    case open(errno: Int32)
    case create(errno: Int32)
    case write(errno: Int32)
    case read(errno: Int32)

    /// A message naming the failed step and the system error, with a hint for EACCES and ENOENT.
    package var description: String {
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
package final class UHIDDevice: Sendable {
    /// The device's identity as the host sees it.
    package struct Identity: Sendable {
        /// The device name hosts show (`HID_NAME`).
        package var name = "Hybrid security key (your phone, via FIDO hybrid)"
        /// USB, so that every host's FIDO discovery lists it like a plugged-in key.
        package var bus: UInt16 = CUHID_bus_usb()
        /// pid.codes (open-source hardware) vendor, test product 0x0001: no real device's ID.
        package var vendor: UInt32 = 0x1209
        /// The product ID (pid.codes test product 0x0001).
        package var product: UInt32 = 0x0001
        /// The device version (BCD: 1.00).
        package var version: UInt32 = 0x0100
        /// Unique per process, so that the hidraw node can be found (`HID_UNIQ`).
        package var uniq = "hybrid-security-key-\(getpid())"
        /// The physical path string (`HID_PHYS`).
        package var phys = "hybrid-security-key"

        /// The default identity (a USB device with the pid.codes test IDs).
        package init() {}
    }

    /// The identity the device was created with.
    package let identity: Identity
    /// The device's events (start, open, output reports, …), in the order /dev/uhid delivered them.
    package let events: AsyncStream<UHIDEvent>
    private let open: OpenNode
    private let reader: DescriptorDrain<UHIDEvent>
    private let destroyed = Mutex(false)

    /// How many events the device's own queue holds (the kernel's holds 32). The longest CTAPHID
    /// message is 129 reports (CTAP 2.2 §11.2.4: 7609 bytes), so this is room for several.
    package static let queueCapacity = 1024

    /// Opens /dev/uhid (or `path`) and creates the device.
    /// - Parameter raiseReaderPriority: whether the reader thread raises its scheduling priority
    ///   (real-time priority 1 when permitted, else nice -10), so that it drains the kernel's
    ///   32-event queue before a host's burst of reports overflows it, even on a loaded machine.
    package init(identity: Identity = .init(), path: String = "/dev/uhid", raiseReaderPriority: Bool = false)
        throws(UHIDError)
    {
        let open = OpenNode(try UHIDNode(identity: identity, path: path, nonBlocking: true))
        self.identity = identity
        self.open = open
        // The reader's closure keeps the descriptor open until the thread has ended too.
        reader = try DescriptorDrain(
            name: "uhid-reader", descriptor: open.node.descriptor, capacity: Self.queueCapacity,
            raisePriority: raiseReaderPriority, read: { try open.node.readEvent() })
        events = reader.elements
    }

    deinit {
        destroy()
    }

    /// Sends one 64-byte input report to the host.
    package func send(_ report: [UInt8]) throws(UHIDError) {
        try open.node.send(report)
    }

    /// Removes the device (idempotent) and stops the reader.
    package func destroy() {
        let first = destroyed.withLock { destroyed in
            defer { destroyed = true }
            return !destroyed
        }
        if first { open.node.destroy() }
        reader.stop()
    }

    /// Events the device's own queue had no room for (none, unless the key stopped consuming).
    package var droppedEvents: Int { reader.droppedCount }

    /// How the reader thread's priority was raised (`nil` until it started).
    package var readerPriority: ReaderPriority? { reader.priority }

    /// The /dev/hidrawN node of this device, once the kernel made it (nil before or if unknown).
    package func hidrawPath(sysfs: String = "/sys/class/hidraw") -> String? {
        hidrawNode(uniq: identity.uniq, sysfs: sysfs)?.path
    }
}

/// The device's descriptor, closed (which removes the device too) once neither the device nor its
/// reader thread holds it.
private final class OpenNode: Sendable {
    let node: UHIDNode

    init(_ node: UHIDNode) {
        self.node = node
    }

    deinit {
        node.close()
    }
}
