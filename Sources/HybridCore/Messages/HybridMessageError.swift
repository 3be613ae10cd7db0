/// Why a message exchanged after the handshake is malformed (protocol.md §3.4, §5.2, §7).
///
/// One error type for everything in `Messages/`: frames, the post-handshake message, revision-0
/// padding, update messages, linking info, the client payload and the CTAP 2.3 advert suffix.
/// Map keys are the integer keys of the map being read.
public enum HybridMessageError: Error, Hashable, Sendable {
    /// A frame with no bytes at all, so no message-type byte (revision ≥ 1).
    case emptyFrame
    /// A message-type byte above `03`. Carries it.
    case unknownMessageType(UInt8)
    /// The bytes are not one strict, canonical CBOR item.
    case cbor(CBORError)
    /// The top-level CBOR item is not a map.
    case notAMap
    /// A required map key is absent. Carries the key.
    case missingKey(Int64)
    /// A map key holds the wrong CBOR type. Carries the key.
    case wrongType(key: Int64)
    /// A byte string at a map key has a length the format does not allow. Carries key and length.
    case invalidLength(key: Int64, length: Int)
    /// Linking key 4 is 65 bytes but not an uncompressed P-256 point on the curve.
    case invalidPublicKey
    /// The linking signature is not 32 bytes or does not verify against the handshake hash.
    case invalidSignature
    /// Revision-0 padding: neither the 16-bit nor the 8-bit trailer leaves a strict CBOR map.
    case invalidPadding
    /// The client-payload header value is not hexadecimal.
    case invalidHex
}
