/// The 32-byte pre-shared key mixed into the Noise handshake (protocol.md §2, §6.2).
///
/// QR flow: `Derive(qr_secret, salt = eid_plaintext, psk, 32)`. Linked flow: the same with the
/// link secret in place of the QR secret. Both peers know the advert plaintext, so the PSK binds
/// the handshake to the advert.
public struct PSK: Sendable, CustomStringConvertible {
    /// Size in bytes.
    public static let byteCount = 32
    /// The raw key, always ``byteCount`` long.
    public let bytes: [UInt8]

    /// Wraps `bytes`, or returns `nil` unless they are exactly 32 bytes long.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = Array(bytes)
    }

    /// `Derive(secret, salt = eidPlaintext, psk, 32)` for a QR secret or a link secret.
    public init(deriving secret: some Collection<UInt8>, eidPlaintext: AdvertPlaintext) {
        bytes = KeyDerivation.derive(from: secret, salt: eidPlaintext.bytes, purpose: .psk, byteCount: Self.byteCount)
    }

    /// Redacted: never prints key bytes.
    public var description: String { "PSK(redacted)" }
}
