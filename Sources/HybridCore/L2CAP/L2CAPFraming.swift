/// The framing of hybrid messages on a CTAP 2.3 BLE L2CAP data channel (protocol.md §3.4, §10.9).
///
/// Each message (a Noise handshake message, then each encrypted frame) is sent as its bytes
/// followed by CRLF (`0d 0a`), as libwebauthn does against Android 16's Play Services, the only
/// pairing tested against a real phone. Writes are cut to the channel's send MTU. Reading is
/// ``L2CAPMessageDeframer``'s job.
package enum L2CAPFraming {
    /// The end-of-message marker.
    package static let endOfMessage: [UInt8] = [0x0D, 0x0A]

    /// The smallest MTU an LE credit-based channel may have (Core spec Vol 3 Part A §4.22).
    package static let minimumSendMTU = 23

    /// The largest message accepted by default: 1 MiB, like the tunnel's largest binary frame (§10.7).
    package static let defaultMaximumMessageSize = 1 << 20

    /// `message` followed by the end-of-message marker.
    package static func frame(_ message: some Collection<UInt8>) -> [UInt8] {
        Array(message) + endOfMessage
    }

    /// The framed `message` cut into writes of at most `sendMTU` bytes, in order. One write per SDU
    /// keeps the kernel from refusing a write larger than the MTU (`EMSGSIZE`).
    ///
    /// - Throws: ``L2CAPFramingError/sendMTUTooSmall(_:)`` below ``minimumSendMTU``.
    package static func writes(for message: some Collection<UInt8>, sendMTU: Int) throws(L2CAPFramingError) -> [[UInt8]]
    {
        guard sendMTU >= minimumSendMTU else { throw .sendMTUTooSmall(sendMTU) }
        let framed = frame(message)
        return stride(from: 0, to: framed.count, by: sendMTU).map {
            Array(framed[$0..<min($0 + sendMTU, framed.count)])
        }
    }
}
