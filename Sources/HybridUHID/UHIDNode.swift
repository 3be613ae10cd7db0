import CUHID

#if canImport(Glibc)
    import Glibc
#endif

/// What /dev/uhid reports about the virtual device.
package enum UHIDEvent: Sendable, Hashable {
    /// The kernel created the HID device (a /dev/hidrawN node follows).
    case start
    case stop
    /// A program opened the hidraw node (first user).
    case open
    /// The last program closed it.
    case close
    /// An output report from a program (64 bytes, the report-ID byte removed).
    case output([UInt8])
}

/// One open /dev/uhid descriptor holding one FIDO HID device: the synchronous, descriptor-level
/// operations, for a caller with its own poll loop (the key broker) or thread (``UHIDDevice``).
///
/// It can create only the FIDO report descriptor (``FIDOReportDescriptor``): there is no way to
/// pass another. A plain descriptor: whoever made it calls ``close()`` once. Closing the descriptor
/// (or the process ending) removes the device too.
package struct UHIDNode: Sendable {
    /// The /dev/uhid descriptor (for poll).
    package let descriptor: Int32

    /// Opens `path` (close-on-exec, non-blocking if `nonBlocking`) and creates the FIDO device.
    /// - Throws: ``UHIDError/open(errno:)`` or ``UHIDError/create(errno:)``.
    package init(identity: UHIDDevice.Identity, path: String = "/dev/uhid", nonBlocking: Bool) throws(UHIDError) {
        let fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | (nonBlocking ? O_NONBLOCK : 0))
        guard fd >= 0 else { throw .open(errno: errno) }
        let result = FIDOReportDescriptor.bytes.withUnsafeBufferPointer { report in
            CUHID_create2(
                fd, identity.name, identity.phys, identity.uniq, identity.bus, identity.vendor, identity.product,
                identity.version, report.baseAddress, report.count)
        }
        guard result == 0 else {
            Glibc.close(fd)
            throw .create(errno: -result)
        }
        descriptor = fd
    }

    /// Sends one input report to the host (UHID_INPUT2).
    package func send(_ report: [UInt8]) throws(UHIDError) {
        let result = report.withUnsafeBufferPointer { CUHID_input2(descriptor, $0.baseAddress, $0.count) }
        guard result == 0 else { throw .write(errno: -result) }
    }

    /// Removes the device (UHID_DESTROY); the descriptor stays open until ``close()``.
    package func destroy() {
        _ = CUHID_destroy(descriptor)
    }

    /// Reads one event: `nil` when none is queued (non-blocking descriptor).
    /// - Throws: ``UHIDError/read(errno:)``.
    package func readEvent() throws(UHIDError) -> UHIDEvent? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            var kind: Int32 = 0
            var size = 0
            let result = buffer.withUnsafeMutableBufferPointer {
                CUHID_read_event(descriptor, &kind, $0.baseAddress, $0.count, &size)
            }
            if result == -EINTR { continue }
            if result == -EAGAIN || result == -EWOULDBLOCK { return nil }
            guard result == 0 else { throw .read(errno: -result) }
            switch Int(kind) {
            case Int(CUHID_EVENT_START): return .start
            case Int(CUHID_EVENT_STOP): return .stop
            case Int(CUHID_EVENT_OPEN): return .open
            case Int(CUHID_EVENT_CLOSE): return .close
            case Int(CUHID_EVENT_OUTPUT): return .output(Self.stripReportID(Array(buffer[0..<size])))
            default: continue
            }
        }
    }

    /// Closes the descriptor, which removes the device if it still exists.
    package func close() {
        Glibc.close(descriptor)
    }

    /// hidraw writes start with the report number (0: the descriptor has no report IDs), which
    /// uhid passes on: 65 bytes become the 64-byte report.
    package static func stripReportID(_ data: [UInt8]) -> [UInt8] {
        data.count == 65 && data[0] == 0 ? Array(data.dropFirst()) : data
    }
}

/// The /dev/hidrawN node of the device whose `HID_UNIQ` is `uniq`, from sysfs (nil until the
/// kernel made it).
package func hidrawNode(uniq: String, sysfs: String = "/sys/class/hidraw") -> (path: String, sysfsName: String)? {
    guard let directory = opendir(sysfs) else { return nil }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        if name.hasPrefix("hidraw") { names.append(name) }
    }
    for name in names.sorted() {
        guard let uevent = readSmallFile("\(sysfs)/\(name)/device/uevent") else { continue }
        if uevent.split(separator: "\n").contains(Substring("HID_UNIQ=\(uniq)")) { return ("/dev/\(name)", name) }
    }
    return nil
}

/// A sysfs attribute file's text (at most 4 KiB).
package func readSmallFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { Glibc.close(fd) }
    var buffer = [UInt8](repeating: 0, count: 4096)
    let count = read(fd, &buffer, buffer.count)
    guard count >= 0 else { return nil }
    return String(decoding: buffer[0..<count], as: UTF8.self)
}
