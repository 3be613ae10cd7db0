/// The kernel's Bluetooth management protocol (BlueZ `doc/mgmt-api.txt`), as far as the L2CAP
/// channel and the adapter watch need it: Read Controller Information, which carries the adapter's
/// current settings, and the events that say a controller came, went or changed its settings.
/// Every packet is a little-endian header (code, controller index, parameter length) and the
/// parameters.
enum ManagementMessage {
    /// Read Controller Information (command code 0x0004), no parameters.
    static let readControllerInformation: UInt16 = 0x0004
    /// Command Complete event (0x0001): command code, status, return parameters.
    static let commandComplete: UInt16 = 0x0001
    /// Command Status event (0x0002): command code, status.
    static let commandStatus: UInt16 = 0x0002

    /// Status Invalid Index (0x11): no controller has the index the command named.
    static let invalidIndex: UInt8 = 0x11
    /// Index Added event (0x0004), no parameters: a controller was registered.
    static let indexAdded: UInt16 = 0x0004
    /// Index Removed event (0x0005), no parameters: a controller was removed.
    static let indexRemoved: UInt16 = 0x0005
    /// New Settings event (0x0006): Current_Settings (4 octets).
    static let newSettings: UInt16 = 0x0006

    /// The command packet asking for controller `index`'s information.
    static func readInformation(index: UInt16) -> [UInt8] {
        littleEndian(readControllerInformation) + littleEndian(index) + littleEndian(0)
    }

    /// What one management event answered to Read Controller Information for `index`.
    enum InformationReply: Equatable {
        /// Current_Settings (mgmt-api.txt, "Read Controller Information Command").
        case settings(ManagementSettings)
        /// The kernel refused the command with this management status (0x11 Invalid Index: no
        /// such controller).
        case failed(status: UInt8)
        /// An event about something else (another command, another controller, an unsolicited
        /// event): keep reading.
        case unrelated
    }

    /// Decodes one event read from the management socket as the answer to
    /// ``readInformation(index:)``.
    /// - Throws: ``BluetoothError/malformedReport(_:)`` when the event is shorter than its
    ///   header or its parameter length says.
    static func informationReply(to index: UInt16, from packet: [UInt8]) throws(BluetoothError) -> InformationReply {
        guard packet.count >= 6 else { throw .malformedReport(.truncated) }
        let code = uint16(packet, at: 0)
        let length = Int(uint16(packet, at: 4))
        guard packet.count >= 6 + length else { throw .malformedReport(.truncated) }
        let parameters = Array(packet[6..<(6 + length)])
        guard uint16(packet, at: 2) == index, code == commandComplete || code == commandStatus,
            parameters.count >= 3, uint16(parameters, at: 0) == readControllerInformation
        else { return .unrelated }
        let status = parameters[2]
        guard status == 0 else { return .failed(status: status) }
        // Address (6), Bluetooth_Version (1), Manufacturer (2), Supported_Settings (4),
        // Current_Settings (4), then the class and names.
        let currentSettings = 3 + 6 + 1 + 2 + 4
        guard code == commandComplete, parameters.count >= currentSettings + 4 else {
            throw .malformedReport(.truncated)
        }
        let raw = (0..<4).reduce(UInt32(0)) { $0 | UInt32(parameters[currentSettings + $1]) << (8 * $1) }
        return .settings(ManagementSettings(rawValue: raw))
    }

    /// An unsolicited event about a controller's presence (mgmt-api.txt, "Index Added Event",
    /// "Index Removed Event", "New Settings Event"); the kernel sends them to every management
    /// socket, unprivileged ones included.
    enum PresenceEvent: Equatable {
        case indexAdded(index: UInt16)
        case indexRemoved(index: UInt16)
        case newSettings(index: UInt16, ManagementSettings)
    }

    /// Decodes one event read from the management socket: the presence event it is, or `nil` for
    /// any other event (command replies, other notifications).
    /// - Throws: ``BluetoothError/malformedReport(_:)`` when the event is shorter than its header,
    ///   its parameter length says, or a New Settings event's 4 octets.
    static func presenceEvent(from packet: [UInt8]) throws(BluetoothError) -> PresenceEvent? {
        guard packet.count >= 6 else { throw .malformedReport(.truncated) }
        let code = uint16(packet, at: 0)
        let index = uint16(packet, at: 2)
        let length = Int(uint16(packet, at: 4))
        guard packet.count >= 6 + length else { throw .malformedReport(.truncated) }
        switch code {
        case indexAdded: return .indexAdded(index: index)
        case indexRemoved: return .indexRemoved(index: index)
        case newSettings:
            guard length >= 4 else { throw .malformedReport(.truncated) }
            let raw = (0..<4).reduce(UInt32(0)) { $0 | UInt32(packet[6 + $1]) << (8 * $1) }
            return .newSettings(index: index, ManagementSettings(rawValue: raw))
        default: return nil
        }
    }

    private static func littleEndian(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private static func uint16(_ bytes: [UInt8], at offset: Int) -> UInt16 {
        UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }
}

/// An adapter's settings as the kernel keeps them (mgmt-api.txt, "Current_Settings" bits).
struct ManagementSettings: OptionSet, Equatable {
    let rawValue: UInt32
    /// Bit 0.
    static let powered = ManagementSettings(rawValue: 1 << 0)
    /// Bit 9, "Low Energy": without it the kernel refuses LE connections (and so LE L2CAP
    /// channels) with ECONNREFUSED. bluetoothd turns it on for LE-capable controllers; a
    /// controller used through raw HCI alone may have it off (`btmgmt le on`).
    static let lowEnergy = ManagementSettings(rawValue: 1 << 9)
}
