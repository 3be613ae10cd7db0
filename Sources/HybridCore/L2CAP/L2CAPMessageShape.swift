/// What the next message on a CTAP 2.3 L2CAP data channel can look like (protocol.md §6.2, §7.1,
/// §10.9), so that ``L2CAPMessageDeframer`` offers only the cuts that could be it.
///
/// Anyone nearby can open the channel, before any authentication: a cut that cannot be the
/// message is never copied nor offered for a trial decryption.
package enum L2CAPMessageShape: Sendable, Hashable {
    /// Exactly this many bytes: the one candidate is the cut at that length.
    case exactly(Int)
    /// At least this many bytes: every CRLF from that length on is a candidate.
    case atLeast(Int)

    /// A Noise handshake message, msg1 or msg2: a 65-byte P-256 point and the 16-byte tag of the
    /// empty payload, 81 bytes (§6.2; a responder refuses a non-empty msg1 payload).
    package static let handshakeMessage = L2CAPMessageShape.exactly(noiseHandshakeMessageByteCount)

    /// A transport frame (§7.1): the padded plaintext, never empty (its last byte counts the
    /// padding), and the 16-byte AES-GCM tag. Peers pad to multiples of 32 (48, 80, 112, …), but
    /// our crypter opens any length, so only the 17-byte floor is assumed.
    package static let transportFrame = L2CAPMessageShape.atLeast(AEAD.tagByteCount + 1)

    /// The shape of the next message of a session: a handshake message until the handshake is
    /// done, then transport frames.
    package static func next(handshakeDone: Bool) -> L2CAPMessageShape {
        handshakeDone ? .transportFrame : .handshakeMessage
    }
}
