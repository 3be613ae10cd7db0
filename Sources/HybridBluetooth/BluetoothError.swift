/// Everything that can go wrong in the Bluetooth layer, phrased so a user can act on it.
///
/// Errors from the three backends (raw HCI, bluetoothd over D-Bus, simulated air) are mapped onto
/// these cases at the boundary: errno values by ``BluetoothError/fromErrno(_:operation:adapter:)``,
/// HCI status bytes into ``commandFailed(opcode:hciStatus:)``, D-Bus error names by the D-Bus backend.
public enum BluetoothError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No such adapter: `name` does not exist, or (`nil`) the machine has no Bluetooth adapter at all.
    case noAdapter(String?)
    /// The adapter exists but is powered off / down.
    case adapterDown(String)
    /// The operating system refused: raw HCI needs CAP_NET_RAW and CAP_NET_ADMIN (or root); D-Bus
    /// needs a policy that lets this user talk to org.bluez.
    case permissionDenied
    /// The adapter is in use in a way that excludes us: another program holds it exclusively
    /// (HCI user channel), or the controller refused because it is already scanning or advertising
    /// for someone else.
    case adapterBusy(String)
    /// The controller rejected an HCI command with a non-zero status (Core spec Vol 1 Part F).
    case commandFailed(opcode: UInt16, hciStatus: UInt8)
    /// The controller did not answer an HCI command in time.
    case commandTimedOut(opcode: UInt16)
    /// Bluetooth cannot be used here at all, e.g. the kernel has no AF_BLUETOOTH, the controller
    /// lacks a needed feature, or bluetoothd is not running.
    case unavailable(reason: String)
    /// A controller event or advert from the air that does not follow the Core spec layout.
    case malformedReport(ReportDefect)
    /// The advertising data does not fit: `length` bytes of AD structures, at most `maximum`.
    case advertisingDataTooLong(length: Int, maximum: Int)
    /// The advertising interval is outside 20 ms ... 10.24 s.
    case invalidInterval(Duration)
    /// bluetoothd answered a D-Bus call with an error not covered above (`name` is the D-Bus error
    /// name, e.g. `org.bluez.Error.Failed`).
    case bluezFailed(name: String, message: String)
    /// A system call failed in an unexpected way (`errno` as returned by the OS).
    case systemCallFailed(operation: String, errno: Int32)

    /// What exactly was wrong with a malformed report.
    public enum ReportDefect: Sendable, Equatable {
        /// The packet ends before a length it announces.
        case truncated
        /// Bytes are left over after the last announced report.
        case trailingBytes
        /// A count or length field holds a value the spec does not allow (e.g. zero reports).
        case invalidField
        /// An AD structure's length runs past the end of the advertising data.
        case malformedADStructure
        /// Not an LE advertising report (wrong event code or subevent).
        case notAnAdvertisingReport
    }

    /// One line for a user.
    public var description: String {
        switch self {
        case .noAdapter(let name?):
            return "Bluetooth adapter \(name) not found (see `hciconfig -a` or `bluetoothctl list`)"
        case .noAdapter(nil):
            return "no Bluetooth adapter found"
        case .adapterDown(let name):
            return "Bluetooth adapter \(name) is down: power it on (`bluetoothctl power on` or `hciconfig \(name) up`)"
                + " or, if it is blocked, `rfkill unblock bluetooth`"
        case .permissionDenied:
            return "permission denied: raw HCI needs CAP_NET_RAW and CAP_NET_ADMIN (run as root, or "
                + "`setcap cap_net_raw,cap_net_admin+eip` on the binary), or use --ble bluez"
        case .adapterBusy(let name):
            return "Bluetooth adapter \(name) is busy (another program is using it exclusively, or is "
                + "already scanning/advertising on it, e.g. bluetoothd: try --ble bluez)"
        case .commandFailed(let opcode, let status):
            return "controller rejected HCI command 0x\(hex4(opcode)) with status 0x\(hex2(status))"
                + (Self.statusNames[status].map { " (\($0))" } ?? "")
        case .commandTimedOut(let opcode):
            return "controller did not answer HCI command 0x\(hex4(opcode))"
        case .unavailable(let reason):
            return "Bluetooth unavailable: \(reason)"
        case .malformedReport(let defect):
            return "malformed advertising report (\(defect))"
        case .advertisingDataTooLong(let length, let maximum):
            return "advertising data too long: \(length) bytes, at most \(maximum)"
        case .invalidInterval(let interval):
            return "advertising interval \(interval) outside 20 ms ... 10.24 s"
        case .bluezFailed(let name, let message):
            return "bluetoothd: \(name): \(message)"
        case .systemCallFailed(let operation, let errno):
            return "\(operation) failed with errno \(errno)"
        }
    }

    /// Names of the HCI status codes a user is likely to meet (Core spec Vol 1 Part F §1.3).
    static let statusNames: [UInt8: String] = [
        0x01: "Unknown HCI Command", 0x02: "Unknown Connection Identifier", 0x07: "Memory Capacity Exceeded",
        0x0C: "Command Disallowed", 0x11: "Unsupported Feature or Parameter Value",
        0x12: "Invalid HCI Command Parameters", 0x1F: "Unspecified Error",
    ]
}

private func hex4(_ value: UInt16) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}

private func hex2(_ value: UInt8) -> String {
    let digits = String(value, radix: 16)
    return digits.count == 1 ? "0" + digits : digits
}
