/// The 32-byte pre-shared key mixed into the Noise handshake (protocol.md §2, §6.2).
///
/// QR flow: `Derive(qr_secret, salt = eid_plaintext, psk, 32)`. Linked flow: the same with the
/// link secret in place of the QR secret. Both peers know the advert plaintext, so the PSK binds
/// the handshake to the advert.
package struct PSK: Sendable, CustomStringConvertible {
    /// Size in bytes.
    package static let byteCount = 32
    /// The raw key, always ``byteCount`` long.
    package let bytes: [UInt8]

    /// Wraps `bytes`, or returns `nil` unless they are exactly 32 bytes long.
    package init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = Array(bytes)
    }

    /// `Derive(secret, salt = eidPlaintext, psk, 32)` for a QR secret or a link secret.
    package init(deriving secret: some Collection<UInt8>, eidPlaintext: AdvertPlaintext) {
        bytes = KeyDerivation.derive(from: secret, salt: eidPlaintext.bytes, purpose: .psk, byteCount: Self.byteCount)
    }

    /// Redacted: never prints key bytes.
    package var description: String { "PSK(redacted)" }
}
