/// The purpose constant of ``KeyDerivation/derive(from:salt:purpose:byteCount:)``, sent as
/// `LE32(rawValue)` in the HKDF info (protocol.md §2). Chromium: `DerivedValueType`.
package enum KeyPurpose: UInt32, Sendable, CaseIterable {
    /// The 64-byte advert key: AES-256 key || HMAC-SHA256 key. Chromium: `kEIDKey`.
    case eidKey = 1
    /// The 16-byte tunnel ID of the QR flow. Chromium: `kTunnelID`.
    case tunnelID = 2
    /// The 32-byte Noise PSK. Chromium: `kPSK`.
    case psk = 3
    /// The 32-byte link secret (phone-internal). Chromium: `kPairedSecret`.
    case pairedSecret = 4
    /// The 32-byte seed of the phone's identity key (phone-internal). Chromium: `kIdentityKeySeed`.
    case identityKeySeed = 5
    /// The 32-byte per-contact intermediate secret (phone-internal). Chromium: `kPerContactIDSecret`.
    case perContactIDSecret = 6
}
