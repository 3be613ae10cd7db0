/// Why a `FIDO:/` URL is not a valid QR code payload (protocol.md §1, SCHEMA.md §4.2).
///
/// Cases are listed in the order ``QRCodePayload/init(url:)`` checks them.
public enum QRCodeError: Error, Equatable, Sendable {
    /// The first 6 characters are not `FIDO:/` (compared ignoring ASCII case).
    case invalidPrefix
    /// The text after the prefix is not a valid digit string.
    case digits(DigitEncodingError)
    /// The decoded bytes are not one strict, canonical CBOR item.
    case cbor(CBORError)
    /// The CBOR item is not a map.
    case notAMap
    /// A required key (0 or 1) is absent. Carries the key.
    case missingKey(Int64)
    /// A key holds the wrong CBOR type: 0 or 1 not a byte string, 2 not an integer, 4 not a bool,
    /// 5 not text. Carries the key.
    case wrongType(key: Int64)
    /// The QR secret (key 1) is not 16 bytes. Carries its length.
    case invalidSecretLength(Int)
    /// The identity key (key 0) is not 33 bytes. Carries its length.
    case invalidPublicKeyLength(Int)
    /// The identity key is 33 bytes but not a compressed P-256 point on the curve.
    case invalidPublicKey
}
