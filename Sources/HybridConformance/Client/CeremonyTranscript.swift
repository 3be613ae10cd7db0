import HybridCore

/// What the conformance client saw in one QR ceremony (one request): every message the
/// authenticator sent, as inspected, the reply its session delivered, the data channel it ran
/// over, and why it ended early.
package struct CeremonyTranscript: Sendable {
    /// The request this ceremony carried, e.g. "makeCredential".
    package let request: String
    /// The authenticator's messages in arrival order, as ``FrameInspector`` saw them.
    package var messages: [InspectedMessage] = []
    /// The CTAP reply (status byte + CBOR) the client's session delivered.
    package var reply: [UInt8]?
    /// Why the ceremony failed before a reply (the session's error, a timeout, a closed tunnel).
    package var failure: String?
    /// The authenticator's advert (its service data) and the channels the QR code offered.
    package var advert: (serviceData: [UInt8], offered: [DataTransferChannel]?)?
    /// That advert decrypted under the QR code's EID key (its first 20 bytes), or why it did not.
    package var advertPlaintext: Result<AdvertPlaintext, AdvertError>?
    /// The PSM the client connected to, when it tried the phone's BLE L2CAP channel.
    package var l2capAttempt: UInt16?
    /// Why the client gave the L2CAP channel up (refused, timed out, no handshake), if it did.
    package var l2capGivenUp: String?
    /// The channel the phone's first message came through.
    package var channel: DataChannelKind?

    package init(request: String) { self.request = request }

    /// The frames that decrypted, in order.
    package var openedFrames: [OpenedFrame] {
        messages.compactMap { if case .frame(let frame) = $0 { frame } else { nil } }
    }
}
