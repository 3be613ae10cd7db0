/// Why a Noise handshake message was rejected (protocol.md §6.2).
///
/// Cases are listed in the order both roles check them. Any of them aborts the handshake.
public enum HandshakeError: Error, Equatable, Sendable {
    /// The message has the wrong length: msg1 shorter than 65 bytes, or msg2 not exactly 81.
    /// Carries the length.
    case invalidMessageLength(Int)
    /// The first 65 bytes are not an uncompressed P-256 point on the curve.
    case invalidPoint
    /// The payload did not decrypt: wrong PSK, wrong static key, or tampered bytes.
    case authenticationFailed
    /// The payload decrypted but is not empty, as the protocol requires.
    case nonEmptyPayload
}
