import HybridCore

/// A broken CTAP 2.3 L2CAP rule (protocol.md §3.4, §10.9), as the live conformance runs report it.
/// The client's side (QR key 6 only as an array offering L2CAP) is `phone.qr.key6-*` in
/// ``QRCodeConformance``.
package enum L2CAPRuleViolation: Error, Hashable, Sendable, CustomStringConvertible {
    /// The phone appended bytes after the 20-byte advert although the QR code did not offer BLE
    /// L2CAP. Carries the service-data length.
    case suffixNotRequested(serviceDataLength: Int)

    package var description: String {
        switch self {
        case .suffixNotRequested(let length):
            "the advert has \(length) bytes of service data, but the QR code did not offer BLE L2CAP"
        }
    }
}
