/// What a controller says it supports: the Supported_Commands bit mask (Read Local Supported
/// Commands, Core spec Vol 4 Part E §6.27 lists octet/bit per command) and the LE feature mask.
struct HCIControllerCapabilities: Equatable {
    /// The 64 octets of Supported_Commands.
    let supportedCommands: [UInt8]
    /// LE_Features (Core spec Vol 6 Part B §4.6), bit 12 = LE Extended Advertising.
    let leFeatures: UInt64

    /// - Parameters:
    ///   - commandsReturn: Read Local Supported Commands return parameters after the status (64 bytes).
    ///   - featuresReturn: LE Read Local Supported Features return parameters after the status (8 bytes).
    init(commandsReturn: [UInt8], featuresReturn: [UInt8]) throws {
        guard commandsReturn.count >= 64, featuresReturn.count >= 8 else {
            throw BluetoothError.malformedReport(.truncated)
        }
        supportedCommands = Array(commandsReturn.prefix(64))
        leFeatures = featuresReturn.prefix(8).enumerated().reduce(0) { $0 | UInt64($1.element) << (8 * $1.offset) }
    }

    func supports(octet: Int, bit: Int) -> Bool {
        supportedCommands[octet] & (1 << bit) != 0
    }

    /// LE Set Advertising Parameters (25.5), LE Set Advertising Data (25.7), LE Set Advertising Enable (26.1).
    var legacyAdvertising: Bool {
        supports(octet: 25, bit: 5) && supports(octet: 25, bit: 7) && supports(octet: 26, bit: 1)
    }

    /// LE Set Scan Parameters (26.2) and LE Set Scan Enable (26.3).
    var legacyScanning: Bool {
        supports(octet: 26, bit: 2) && supports(octet: 26, bit: 3)
    }

    /// LE feature bit 12 plus LE Set Extended Advertising Parameters (36.2), Data (36.3), Enable (36.5).
    var extendedAdvertising: Bool {
        leFeatures & (1 << 12) != 0 && supports(octet: 36, bit: 2) && supports(octet: 36, bit: 3)
            && supports(octet: 36, bit: 5)
    }

    /// LE Remove Advertising Set (37.0).
    var removeAdvertisingSet: Bool {
        supports(octet: 37, bit: 0)
    }

    /// LE Set Extended Scan Parameters (37.5) and Enable (37.6), as the Linux kernel's `use_ext_scan` checks.
    var extendedScanning: Bool {
        supports(octet: 37, bit: 5) && supports(octet: 37, bit: 6)
    }
}
