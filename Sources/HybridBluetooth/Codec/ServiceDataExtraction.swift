extension LEAdvertisingReport {
    /// The adverts in this report: one per Service Data - 16-bit UUID structure whose UUID is in
    /// `uuids`. Incomplete extended reports (fragments) give none.
    /// - Throws: ``BluetoothError/malformedReport(_:)`` when the AD structures are malformed.
    package func adverts(for uuids: Set<UInt16>) throws -> [BLEAdvertisement] {
        guard isComplete else { return [] }
        return try AdvertisingData.serviceData16(in: data)
            .filter { uuids.contains($0.uuid16) }
            .map {
                BLEAdvertisement(
                    address: address,
                    addressType: BLEAddressType(reportAddressType: addressType),
                    uuid16: $0.uuid16,
                    serviceData: $0.data,
                    rssi: rssi
                )
            }
    }
}
