/// One HCI command: opcode (OGF << 10 | OCF) and parameters (Core spec Vol 4 Part E §5.4.1).
/// The builders below produce exactly the parameter layouts of Core spec Vol 4 Part E §7.8.
struct HCICommand: Equatable {
    let opcode: UInt16
    let parameters: [UInt8]

    /// The H4 packet written to an HCI socket: type 0x01, opcode (LE), length, parameters.
    var packet: [UInt8] {
        [0x01, UInt8(opcode & 0xFF), UInt8(opcode >> 8), UInt8(parameters.count)] + parameters
    }

    enum Opcode {
        static let disconnect: UInt16 = 0x0406  // §7.1.6
        static let readLocalSupportedCommands: UInt16 = 0x1002  // §7.4.2
        static let leReadLocalSupportedFeatures: UInt16 = 0x2003  // §7.8.3
        static let leSetRandomAddress: UInt16 = 0x2005  // §7.8.4
        static let leSetAdvertisingParameters: UInt16 = 0x2006  // §7.8.5
        static let leSetAdvertisingData: UInt16 = 0x2008  // §7.8.7
        static let leSetAdvertisingEnable: UInt16 = 0x200A  // §7.8.9
        static let leSetScanParameters: UInt16 = 0x200B  // §7.8.10
        static let leSetScanEnable: UInt16 = 0x200C  // §7.8.11
        static let leSetAdvertisingSetRandomAddress: UInt16 = 0x2035  // §7.8.52
        static let leSetExtendedAdvertisingParameters: UInt16 = 0x2036  // §7.8.53
        static let leSetExtendedAdvertisingData: UInt16 = 0x2037  // §7.8.54
        static let leSetExtendedAdvertisingEnable: UInt16 = 0x2039  // §7.8.56
        static let leRemoveAdvertisingSet: UInt16 = 0x203C  // §7.8.59
        static let leSetExtendedScanParameters: UInt16 = 0x2041  // §7.8.64
        static let leSetExtendedScanEnable: UInt16 = 0x2042  // §7.8.65
    }

    /// Own_Address_Type of the advertising parameter commands (§7.8.5, §7.8.53).
    enum OwnAddressType: UInt8 {
        /// The controller's public address.
        case `public` = 0x00
        /// The random address set by LE Set Random Address (legacy) or LE Set Advertising Set
        /// Random Address (extended).
        case random = 0x01
    }

    /// Advertising interval in controller units of 0.625 ms (20 ms = 0x0020 ... 10.24 s = 0x4000).
    static func intervalUnits(milliseconds: Int) -> UInt32 {
        UInt32(milliseconds * 8 / 5)
    }

    static let readLocalSupportedCommands = HCICommand(opcode: Opcode.readLocalSupportedCommands, parameters: [])
    static let leReadLocalSupportedFeatures = HCICommand(opcode: Opcode.leReadLocalSupportedFeatures, parameters: [])

    /// Ends the link with `handle` (§7.1.6), with reason Remote User Terminated Connection (0x13),
    /// the reason a host gives when it has no more use for the link. The controller answers with
    /// Command Status, then Disconnection Complete on both sides.
    static func disconnect(handle: UInt16) -> HCICommand {
        HCICommand(opcode: Opcode.disconnect, parameters: le16(handle & 0x0FFF) + [0x13])
    }

    // MARK: Legacy advertising

    /// The controller's random address, used by legacy advertising with own address type random.
    /// The controller refuses it (Command Disallowed) while legacy advertising or scanning is on.
    static func leSetRandomAddress(_ address: BLEAddress) -> HCICommand {
        HCICommand(opcode: Opcode.leSetRandomAddress, parameters: address.littleEndianBytes)
    }

    /// ADV_NONCONN_IND (type 0x03), or ADV_IND (type 0x00) when `connectable`; all three channels,
    /// no filter.
    static func leSetAdvertisingParameters(
        intervalUnits: UInt16, ownAddressType: OwnAddressType, connectable: Bool = false
    ) -> HCICommand {
        let interval = le16(intervalUnits)
        let type: UInt8 = connectable ? 0x00 : 0x03
        return HCICommand(
            opcode: Opcode.leSetAdvertisingParameters,
            parameters: interval + interval + [type, ownAddressType.rawValue, 0x00] + [UInt8](repeating: 0, count: 6)
                + [0x07, 0x00]
        )
    }

    /// Length byte, then the data zero-padded to 31 bytes.
    /// - Precondition: `data.count <= 31` (the caller chose legacy because it fits).
    static func leSetAdvertisingData(_ data: [UInt8]) -> HCICommand {
        precondition(data.count <= AdvertisingDataLayout.legacyMaximum, "legacy advertising data is 31 bytes at most")
        return HCICommand(
            opcode: Opcode.leSetAdvertisingData,
            parameters: [UInt8(data.count)] + data + [UInt8](repeating: 0, count: 31 - data.count)
        )
    }

    static func leSetAdvertisingEnable(_ enable: Bool) -> HCICommand {
        HCICommand(opcode: Opcode.leSetAdvertisingEnable, parameters: [enable ? 1 : 0])
    }

    // MARK: Extended advertising

    /// Advertising_Event_Properties (Core spec Vol 4 Part E §7.8.53): bit 0 connectable, bit 1
    /// scannable, bit 4 "use legacy PDUs". Legacy with bits 0-3 clear is ADV_NONCONN_IND; legacy
    /// connectable must also be scannable (ADV_IND). An extended advert may be connectable or
    /// scannable, not both.
    enum ExtendedProperties {
        static let legacyNonConnectable: UInt16 = 0x0010
        static let extendedNonConnectable: UInt16 = 0x0000
        static let legacyConnectable: UInt16 = 0x0013
        static let extendedConnectable: UInt16 = 0x0001

        /// The properties for an advert of `layout`: extended PDUs when the data needs them or the
        /// advert is connectable (the Linux kernel's LE connect scans with extended commands and
        /// did not find a legacy ADV_IND in blevm, protocol.md §10.9).
        static func of(_ layout: AdvertisingDataLayout, connectable: Bool) -> UInt16 {
            switch (connectable, layout.needsExtendedAdvertising) {
            case (true, _): extendedConnectable
            case (false, true): extendedNonConnectable
            case (false, false): legacyNonConnectable
            }
        }
    }

    /// Version 1 parameters: 1M primary and secondary PHY, all channels, no TX power preference
    /// (0x7F), SID 0, no scan-request notifications.
    static func leSetExtendedAdvertisingParameters(
        handle: UInt8,
        properties: UInt16,
        intervalUnits: UInt32,
        ownAddressType: OwnAddressType
    ) -> HCICommand {
        let interval = le24(intervalUnits)
        var parameters: [UInt8] = [handle] + le16(properties) + interval + interval
        parameters += [0x07, ownAddressType.rawValue, 0x00] + [UInt8](repeating: 0, count: 6) + [0x00]
        parameters += [0x7F, 0x01, 0x00, 0x01, 0x00, 0x00]
        return HCICommand(opcode: Opcode.leSetExtendedAdvertisingParameters, parameters: parameters)
    }

    /// The random address of one advertising set. The set must exist (LE Set Extended Advertising
    /// Parameters first); the controller refuses it (Command Disallowed) while the set is enabled.
    static func leSetAdvertisingSetRandomAddress(handle: UInt8, _ address: BLEAddress) -> HCICommand {
        HCICommand(opcode: Opcode.leSetAdvertisingSetRandomAddress, parameters: [handle] + address.littleEndianBytes)
    }

    /// Operation 0x03 (complete data), fragment preference 0x01 (controller should not fragment).
    /// - Precondition: `data.count <= 251`.
    static func leSetExtendedAdvertisingData(handle: UInt8, _ data: [UInt8]) -> HCICommand {
        precondition(data.count <= AdvertisingDataLayout.extendedMaximum, "one command carries 251 bytes at most")
        return HCICommand(
            opcode: Opcode.leSetExtendedAdvertisingData,
            parameters: [handle, 0x03, 0x01, UInt8(data.count)] + data
        )
    }

    /// One set, no duration limit, no event-count limit.
    static func leSetExtendedAdvertisingEnable(_ enable: Bool, handle: UInt8) -> HCICommand {
        HCICommand(
            opcode: Opcode.leSetExtendedAdvertisingEnable,
            parameters: [enable ? 1 : 0, 0x01, handle, 0x00, 0x00, 0x00]
        )
    }

    static func leRemoveAdvertisingSet(handle: UInt8) -> HCICommand {
        HCICommand(opcode: Opcode.leRemoveAdvertisingSet, parameters: [handle])
    }

    // MARK: Scanning

    /// Scan interval and window, in 0.625 ms units: 0x0010 (10 ms) each, i.e. listen continuously.
    static let scanIntervalUnits: UInt16 = 0x0010

    /// Passive scan, public own address, accept all adverts.
    static func leSetScanParameters() -> HCICommand {
        HCICommand(
            opcode: Opcode.leSetScanParameters,
            parameters: [0x00] + le16(scanIntervalUnits) + le16(scanIntervalUnits) + [0x00, 0x00]
        )
    }

    /// Duplicate filtering is always off: caBLE clients want every advert.
    static func leSetScanEnable(_ enable: Bool) -> HCICommand {
        HCICommand(opcode: Opcode.leSetScanEnable, parameters: [enable ? 1 : 0, 0x00])
    }

    /// Public own address, accept all, 1M PHY only, passive, 10 ms interval and window.
    static func leSetExtendedScanParameters() -> HCICommand {
        HCICommand(
            opcode: Opcode.leSetExtendedScanParameters,
            parameters: [0x00, 0x00, 0x01, 0x00] + le16(scanIntervalUnits) + le16(scanIntervalUnits)
        )
    }

    /// No duplicate filtering, no duration, no period.
    static func leSetExtendedScanEnable(_ enable: Bool) -> HCICommand {
        HCICommand(opcode: Opcode.leSetExtendedScanEnable, parameters: [enable ? 1 : 0, 0x00, 0x00, 0x00, 0x00, 0x00])
    }
}

private func le16(_ value: UInt16) -> [UInt8] {
    [UInt8(value & 0xFF), UInt8(value >> 8)]
}

private func le24(_ value: UInt32) -> [UInt8] {
    [UInt8(value & 0xFF), UInt8((value >> 8) & 0xFF), UInt8((value >> 16) & 0xFF)]
}
