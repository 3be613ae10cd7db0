/// Scanning through raw HCI commands. Blocking: runs on the scanner's own thread.
extension HCIConnection {
    /// How scanning was switched on, so it can be switched off the same way.
    enum ActiveScanning: Equatable {
        case legacy
        case extended
    }

    /// Switches passive scanning on, duplicates not filtered.
    func startScanning(family: HCICommandFamily) throws -> ActiveScanning {
        let capabilities = try readCapabilities()
        switch family {
        case .legacy:
            return try startLegacyScanning()
        case .extended:
            return try startExtendedScanning(capabilities)
        case .automatic where !capabilities.legacyScanning:
            return try startExtendedScanning(capabilities)
        case .automatic:
            do {
                return try startLegacyScanning()
            } catch BluetoothError.commandFailed(_, let status)
                where (status == 0x0C || status == 0x01) && capabilities.extendedScanning
            {
                logger.debug(
                    "legacy scanning refused, using extended commands",
                    metadata: ["ble.adapter": "\(adapter.name)"]
                )
                return try startExtendedScanning(capabilities)
            }
        }
    }

    func stopScanning(_ active: ActiveScanning) throws {
        switch active {
        case .legacy: try send(.leSetScanEnable(false))
        case .extended: try send(.leSetExtendedScanEnable(false))
        }
    }

    private func startLegacyScanning() throws -> ActiveScanning {
        // Parameters cannot change while scanning is on: switch off first.
        try sendIgnoringRejection(.leSetScanEnable(false))
        try send(.leSetScanParameters())
        try send(.leSetScanEnable(true))
        return .legacy
    }

    private func startExtendedScanning(_ capabilities: HCIControllerCapabilities) throws -> ActiveScanning {
        guard capabilities.extendedScanning else {
            throw BluetoothError.unavailable(reason: "\(adapter.name) has no extended scanning")
        }
        try sendIgnoringRejection(.leSetExtendedScanEnable(false))
        try send(.leSetExtendedScanParameters())
        try send(.leSetExtendedScanEnable(true))
        return .extended
    }
}
