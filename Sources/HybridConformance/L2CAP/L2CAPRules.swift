import HybridCore

/// The CTAP 2.3 L2CAP rule a phone is judged by (protocol.md §3.4), as a pure check.
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
}
