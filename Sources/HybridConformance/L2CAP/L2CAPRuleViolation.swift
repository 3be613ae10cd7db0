import HybridCore

/// A broken CTAP 2.3 L2CAP rule (protocol.md §1.3, §3.4, §10.9), as the live conformance runs report it.
package enum L2CAPRuleViolation: Error, Hashable, Sendable, CustomStringConvertible {
    /// The phone appended bytes after the 20-byte advert although the QR code did not offer BLE
    /// L2CAP. Carries the service-data length.
    case suffixNotRequested(serviceDataLength: Int)
    /// The client's QR key 6 is an array that does not offer BLE L2CAP: Play Services before CTAP
    /// 2.3 rejects any array there, so the key costs compatibility for nothing. Carries the channels.
    case key6WithoutL2CAP([UInt64])
    /// The client's QR key 6 is not an array of unsigned integers.
    case key6NotAnArray
    /// The QR payload is not one CBOR map.
    case qrNotAMap

    package var description: String {
        switch self {
        case .suffixNotRequested(let length):
            "the advert has \(length) bytes of service data, but the QR code did not offer BLE L2CAP"
        case .key6WithoutL2CAP(let channels):
            "QR key 6 is \(channels) without channel 1; older Play Services reject an array there"
        case .key6NotAnArray: "QR key 6 is not an array of channel IDs"
        case .qrNotAMap: "the QR payload is not a CBOR map"
        }
    }
}
