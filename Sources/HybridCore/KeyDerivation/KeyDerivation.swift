import Crypto

/// The protocol's key derivation, `Derive(secret, salt, purpose, L)` (protocol.md §2).
///
/// HKDF-SHA256 with IKM = `secret`, the given salt (absent = empty, which RFC 5869 treats as
/// 32 zero bytes) and info = `LE32(purpose)`. Chromium: `internal::Derive`.
package enum KeyDerivation {
    /// The output lengths HKDF-SHA256 can produce: 1…255 × 32 bytes.
    package static let byteCountRange = 1...(255 * SHA256.byteCount)

    /// Derives `byteCount` bytes from `secret` for `purpose`.
    ///
    /// - Parameters:
    ///   - secret: The input keying material (QR secret, link secret, root secret, …).
    ///   - salt: The salt, or `nil` for none (the same as empty).
    ///   - purpose: The purpose constant that goes into the HKDF info.
    ///   - byteCount: The output length, 1…8160.
    /// - Returns: The derived bytes.
    package static func derive(
        from secret: some Collection<UInt8>,
        salt: [UInt8]?,
        purpose: KeyPurpose,
        byteCount: Int
    ) -> [UInt8] {
        precondition(byteCountRange.contains(byteCount), "HKDF-SHA256 output length out of range")
        let raw = purpose.rawValue
        let info: [UInt8] = [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: raw >> $0) }
        return hkdfSHA256(secret: Array(secret), salt: salt ?? [], info: info, byteCount: byteCount)
    }

    /// Plain RFC 5869 HKDF-SHA256; shared with the identity-key derivation and the Noise state.
    static func hkdfSHA256(secret: [UInt8], salt: [UInt8], info: [UInt8], byteCount: Int) -> [UInt8] {
        let key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: secret),
            salt: salt,
            info: info,
            outputByteCount: byteCount
        )
        return key.withUnsafeBytes { Array($0) }
    }
}
