/// The 16-byte secret in a QR code (key 1), from which both peers derive the QR flow's keys
/// (protocol.md §1.4, §2). Chromium: `qr_secret`.
public struct QRSecret: Sendable, CustomStringConvertible {
    /// Size in bytes.
    public static let byteCount = 16
    /// The raw secret, always ``byteCount`` long.
    public let bytes: [UInt8]

    /// Wraps `bytes`, or returns `nil` unless they are exactly 16 bytes long.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = Array(bytes)
    }

    /// The advert key, `Derive(secret, none, eidKey, 64)`.
    package var eidKey: EIDKey { EIDKey(deriving: bytes, salt: nil) }

    /// The tunnel ID, `Derive(secret, none, tunnelID, 16)`.
    package var tunnelID: TunnelID {
        let derived = KeyDerivation.derive(from: bytes, salt: nil, purpose: .tunnelID, byteCount: TunnelID.byteCount)
        guard let tunnelID = TunnelID(bytes: derived) else { preconditionFailure("derived 16 bytes") }
        return tunnelID
    }

    /// The Noise PSK for the advert that carried `eidPlaintext`, `Derive(secret, eidPlaintext, psk, 32)`.
    package func psk(eidPlaintext: AdvertPlaintext) -> PSK {
        PSK(deriving: bytes, eidPlaintext: eidPlaintext)
    }

    /// Redacted: never prints the secret.
    public var description: String { "QRSecret(redacted)" }
}
