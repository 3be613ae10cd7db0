import Crypto

/// The wallet's device key: a P-256 key that issuers bind credentials to (the SD-JWT VC's
/// `cnf.jwk`, the mdoc MSO's `deviceKeyInfo.deviceKey`) and that signs every presentation (the
/// key-binding JWT, the mdoc DeviceAuth). It never leaves the phone.
package struct DeviceKey: Sendable {
    /// The private key.
    package let privateKey: P256.Signing.PrivateKey

    /// A device key from its 32-byte scalar.
    package init(privateKey: P256.Signing.PrivateKey) { self.privateKey = privateKey }

    /// A new key from `random`: 32 bytes per attempt; a scalar of zero or at least the group order
    /// (probability about 2^-32 from a real source) is drawn again, up to 8 attempts.
    /// - Throws: ``WalletError/randomSourceFailed`` when no attempt gave a valid scalar.
    package static func generate(random: (Int) -> [UInt8]) throws(WalletError) -> DeviceKey {
        for _ in 0..<8 {
            if let key = try? P256.Signing.PrivateKey(rawRepresentation: random(32)) {
                return DeviceKey(privateKey: key)
            }
        }
        throw .randomSourceFailed
    }

    /// The public key as a JWK: what an issuer puts in `cnf.jwk`.
    package var publicJWK: P256PublicJWK { P256PublicJWK(privateKey.publicKey) }
}
