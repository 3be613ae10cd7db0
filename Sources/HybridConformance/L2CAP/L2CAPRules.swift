import HybridCore

/// The CTAP 2.3 L2CAP rules a peer is judged by (protocol.md §1.3, §3.4), as pure checks.
package enum L2CAPRules {
    /// A phone appends the `{1: PSM}` suffix only when the QR code offered BLE L2CAP.
    ///
    /// - Parameters:
    ///   - serviceData: The phone's advert service data under FFF9/FDE2.
    ///   - qrChannels: The channels the QR code offered (key 6), `nil` without the key.
    package static func checkPhoneAdvert(
        serviceData: [UInt8], qrChannels: [DataTransferChannel]?
    ) throws(L2CAPRuleViolation) {
        let offered = qrChannels?.contains(.bleL2CAP) == true
        if !offered && serviceData.count > AdvertServiceData.advertByteCount {
            throw .suffixNotRequested(serviceDataLength: serviceData.count)
        }
    }

    /// A client writes QR key 6 only as an array that offers BLE L2CAP (key 6 absent is fine).
    ///
    /// - Parameter qrCBOR: The decoded QR payload bytes (the CBOR map behind the digits).
    package static func checkClientQR(qrCBOR: [UInt8]) throws(L2CAPRuleViolation) {
        guard let map = try? CBORDecoder.decode(qrCBOR), map.mapEntries != nil else { throw .qrNotAMap }
        guard let key6 = map[intKey: 6] else { return }
        guard let items = key6.arrayValue else { throw .key6NotAnArray }
        var channels: [UInt64] = []
        for item in items {
            guard let value = item.intValue, value >= 0 else { throw .key6NotAnArray }
            channels.append(UInt64(value))
        }
        guard channels.contains(DataTransferChannel.bleL2CAP.rawValue) else { throw .key6WithoutL2CAP(channels) }
    }
}
