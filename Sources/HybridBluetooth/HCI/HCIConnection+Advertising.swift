import CBlueZ

/// Advertising through raw HCI commands. Blocking: runs on the advertiser's own thread.
extension HCIConnection {
    /// How an advert was switched on, so it can be switched off the same way.
    enum ActiveAdvertising: Equatable {
        case legacy
        case extended(handle: UInt8)
    }

    /// The advertising set we use with the extended commands. The kernel numbers its own sets from
    /// 0/1 upwards (one per mgmt instance), so a high handle keeps us clear of them.
    static let advertisingSetHandle: UInt8 = 0x0A

    /// Switches advertising on from the random address `ownAddress` (a fresh non-resolvable private
    /// address per start), per `family` (see ``HCICommandFamily``), and registers the exit guard.
    func startAdvertising(
        _ advert: BLEServiceDataAdvert,
        family: HCICommandFamily,
        ownAddress: BLEAddress
    ) throws -> ActiveAdvertising {
        let layout = try AdvertisingDataLayout(advert)
        let capabilities = try readCapabilities()
        let active: ActiveAdvertising
        switch family {
        case .legacy:
            active = try startLegacy(layout, advert: advert, ownAddress: ownAddress)
        case .extended:
            active = try startExtended(layout, advert: advert, ownAddress: ownAddress, capabilities: capabilities)
        case .automatic
        where layout.needsExtendedAdvertising || !capabilities.legacyAdvertising
            || (advert.connectable && capabilities.extendedAdvertising):
            active = try startExtended(layout, advert: advert, ownAddress: ownAddress, capabilities: capabilities)
        case .automatic:
            do {
                active = try startLegacy(layout, advert: advert, ownAddress: ownAddress)
            } catch BluetoothError.commandFailed(_, let status)
                where (status == 0x0C || status == 0x01) && capabilities.extendedAdvertising
            {
                // The kernel (mgmt / bluetoothd) has used extended commands on this controller, or
                // it is scanning with legacy commands (no LE Set Random Address then): an advertising
                // set has its own random address.
                logger.debug(
                    "legacy advertising refused, using extended commands",
                    metadata: ["ble.adapter": "\(adapter.name)"]
                )
                active = try startExtended(layout, advert: advert, ownAddress: ownAddress, capabilities: capabilities)
            }
        }
        let guarded: Int32
        switch active {
        case .legacy: guarded = CBlueZ_guardAdvertising(adapter.id, 0, 0)
        case .extended(let handle): guarded = CBlueZ_guardAdvertising(adapter.id, 1, handle)
        }
        if guarded != 0 {
            logger.info(
                "advertising not guarded against process exit (too many sets)",
                metadata: ["ble.adapter": "\(adapter.name)"]
            )
        }
        return active
    }

    /// Switches advertising off and releases the exit guard (kept if switching off failed).
    func stopAdvertising(_ active: ActiveAdvertising) throws {
        switch active {
        case .legacy:
            try send(.leSetAdvertisingEnable(false))
            CBlueZ_unguardAdvertising(adapter.id, 0, 0)
        case .extended(let handle):
            try send(.leSetExtendedAdvertisingEnable(false, handle: handle))
            CBlueZ_unguardAdvertising(adapter.id, 1, handle)
            try sendIgnoringRejection(.leRemoveAdvertisingSet(handle: handle))
        }
    }

    private func startLegacy(
        _ layout: AdvertisingDataLayout,
        advert: BLEServiceDataAdvert,
        ownAddress: BLEAddress
    ) throws -> ActiveAdvertising {
        guard !layout.needsExtendedAdvertising else {
            throw BluetoothError.advertisingDataTooLong(
                length: layout.data.count,
                maximum: AdvertisingDataLayout.legacyMaximum
            )
        }
        // Neither the random address nor the parameters can change while advertising is on (Command
        // Disallowed): switch off first, then address, parameters, data, enable.
        try sendIgnoringRejection(.leSetAdvertisingEnable(false))
        try send(.leSetRandomAddress(ownAddress))
        try send(
            .leSetAdvertisingParameters(
                intervalUnits: UInt16(HCICommand.intervalUnits(milliseconds: advert.intervalMilliseconds)),
                ownAddressType: .random,
                connectable: advert.connectable
            )
        )
        try send(.leSetAdvertisingData(layout.data))
        try send(.leSetAdvertisingEnable(true))
        return .legacy
    }

    private func startExtended(
        _ layout: AdvertisingDataLayout,
        advert: BLEServiceDataAdvert,
        ownAddress: BLEAddress,
        capabilities: HCIControllerCapabilities
    ) throws -> ActiveAdvertising {
        guard capabilities.extendedAdvertising else {
            throw BluetoothError.unavailable(
                reason: "\(adapter.name) has no extended advertising"
                    + (layout.needsExtendedAdvertising
                        ? ", needed for \(layout.data.count) bytes of advertising data" : "")
            )
        }
        let handle = Self.advertisingSetHandle
        try sendIgnoringRejection(.leSetExtendedAdvertisingEnable(false, handle: handle))
        if capabilities.removeAdvertisingSet { try sendIgnoringRejection(.leRemoveAdvertisingSet(handle: handle)) }
        let properties = HCICommand.ExtendedProperties.of(layout, connectable: advert.connectable)
        try send(
            .leSetExtendedAdvertisingParameters(
                handle: handle,
                properties: properties,
                intervalUnits: HCICommand.intervalUnits(milliseconds: advert.intervalMilliseconds),
                ownAddressType: .random
            )
        )
        // The set's own random address: the set exists once its parameters are set.
        try send(.leSetAdvertisingSetRandomAddress(handle: handle, ownAddress))
        try send(.leSetExtendedAdvertisingData(handle: handle, layout.data))
        try send(.leSetExtendedAdvertisingEnable(true, handle: handle))
        return .extended(handle: handle)
    }
}
