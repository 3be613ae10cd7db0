/// The advertising data we put on the air for one ``BLEServiceDataAdvert``.
///
/// **Layout choice** (protocol.md §3.3). The Service Data structure (`17 16 F9 FF <20 bytes>` for a
/// caBLE EID) is the only part a client needs: Chromium and Safari decrypt it, and webauthn-rs sends
/// nothing else. Two optional structures are added, in this priority, only while the total still fits
/// the 31 bytes of a legacy advert:
/// 1. the Complete List of 16-bit UUIDs (`03 03 F9 FF`): Chrome Android sends it, and scanners that
///    filter on advertised service UUIDs (Android `ScanFilter`, bluetoothd's discovery-filter UUIDs)
///    need it;
/// 2. Flags `02 01 06` (LE General Discoverable, BR/EDR not supported): optional for a
///    non-connectable advert (Core Supplement Part A §1.3), but bluetoothd drops adverts without a
///    discoverable flag for clients that scan without a discovery filter.
///
/// A 20-byte EID uses all three: `02 01 06  03 03 F9 FF  17 16 F9 FF <20>` = exactly 31 bytes. A
/// 24-byte EID with a CTAP 2.3 suffix (§3.4) drops the UUID list (flags + service data = 31) and
/// stays legacy. Service data over 27 bytes cannot fit a legacy advert at all: it needs
/// extended advertising (an extended, non-legacy PDU, up to 251 bytes in one command), where both
/// optional structures fit again.
struct AdvertisingDataLayout: Equatable {
    /// The AD structures, in air order (flags, UUID list, service data).
    let data: [UInt8]
    /// `true` when `data` is longer than a legacy advert can carry.
    let needsExtendedAdvertising: Bool

    /// Payload of one legacy advert (LE Set Advertising Data).
    static let legacyMaximum = 31
    /// Payload of one LE Set Extended Advertising Data command (operation "complete data").
    static let extendedMaximum = 251

    /// - Throws: ``BluetoothError/advertisingDataTooLong(length:maximum:)`` when even the service data
    ///   alone exceeds ``extendedMaximum``.
    init(_ advert: BLEServiceDataAdvert) throws {
        guard advert.serviceData.count + 4 <= Self.extendedMaximum else {
            throw BluetoothError.advertisingDataTooLong(
                length: advert.serviceData.count + 4,
                maximum: Self.extendedMaximum
            )
        }
        let serviceData = AdvertisingData.serviceData16(advert.uuid16, advert.serviceData)
        let needsExtended = serviceData.count > Self.legacyMaximum
        let budget = needsExtended ? Self.extendedMaximum : Self.legacyMaximum
        var used = serviceData.count
        let uuidList = AdvertisingData.completeUUID16List(advert.uuid16)
        let includeUUIDList = used + uuidList.count <= budget
        if includeUUIDList { used += uuidList.count }
        let flags = AdvertisingData.flags()
        let includeFlags = used + flags.count <= budget
        data = (includeFlags ? flags : []) + (includeUUIDList ? uuidList : []) + serviceData
        needsExtendedAdvertising = needsExtended
    }
}
