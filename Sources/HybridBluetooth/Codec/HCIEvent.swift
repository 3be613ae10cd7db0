/// The HCI events the Bluetooth layer reads (Core spec Vol 4 Part E §7.7).
package enum HCIEvent: Equatable {
    /// Command Complete (0x0E). `returnParameters` starts with the status byte for every command we send.
    case commandComplete(opcode: UInt16, returnParameters: [UInt8])
    /// Command Status (0x0F).
    case commandStatus(opcode: UInt16, status: UInt8)
    /// LE Meta (0x3E): `parameters` are everything after the subevent code.
    case leMeta(subevent: UInt8, parameters: [UInt8])
    /// Any other event; not used.
    case other(code: UInt8)

    static let commandCompleteCode: UInt8 = 0x0E
    static let commandStatusCode: UInt8 = 0x0F
    static let leMetaCode: UInt8 = 0x3E

    /// Parses one packet as read from an HCI socket: H4 type 0x04, event code, parameter length,
    /// parameters.
    /// - Throws: ``BluetoothError/malformedReport(_:)`` when lengths do not add up.
    package init(packet: [UInt8]) throws {
        guard packet.count >= 3, packet[0] == 0x04 else { throw BluetoothError.malformedReport(.truncated) }
        let code = packet[1]
        let length = Int(packet[2])
        guard packet.count >= 3 + length else { throw BluetoothError.malformedReport(.truncated) }
        guard packet.count == 3 + length else { throw BluetoothError.malformedReport(.trailingBytes) }
        let parameters = Array(packet[3...])
        switch code {
        case Self.commandCompleteCode:
            // Num_HCI_Command_Packets (1), Command_Opcode (2), Return_Parameters.
            guard parameters.count >= 3 else { throw BluetoothError.malformedReport(.truncated) }
            self = .commandComplete(
                opcode: UInt16(parameters[1]) | UInt16(parameters[2]) << 8,
                returnParameters: Array(parameters[3...])
            )
        case Self.commandStatusCode:
            // Status (1), Num_HCI_Command_Packets (1), Command_Opcode (2).
            guard parameters.count == 4 else { throw BluetoothError.malformedReport(.truncated) }
            self = .commandStatus(opcode: UInt16(parameters[2]) | UInt16(parameters[3]) << 8, status: parameters[0])
        case Self.leMetaCode:
            guard let subevent = parameters.first else { throw BluetoothError.malformedReport(.truncated) }
            self = .leMeta(subevent: subevent, parameters: Array(parameters.dropFirst()))
        default:
            self = .other(code: code)
        }
    }
}
