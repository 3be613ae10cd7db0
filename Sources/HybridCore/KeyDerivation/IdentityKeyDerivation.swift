import Crypto

/// Derives a P-256 key from a seed the way BoringSSL's `EC_KEY_derive_from_secret` does
/// (protocol.md §1.4), so that Chromium fixtures keyed by seeds can be reproduced.
///
/// d' = HKDF-SHA256(IKM = seed, salt = empty, info = `"derive EC key P-256"`, L = 48); the private
/// scalar is big-endian(d') mod n. Only the public key ever reaches the wire, so an implementation
/// is free to use random keys instead; this exists for test fixtures and phone-internal seeds.
package enum IdentityKeyDerivation {
    /// The HKDF info string, ASCII without a terminating NUL.
    static let info = Array("derive EC key P-256".utf8)
    /// HKDF output length: the 32-byte order plus 16 extra bytes, which keeps the bias below 2^-128.
    static let derivedByteCount = 48

    /// The private scalar for `seed` as 32 big-endian bytes.
    ///
    /// - Parameter seed: The secret; any length (the protocol uses 32 bytes).
    /// - Returns: HKDF output reduced modulo the P-256 order.
    package static func privateScalar(fromSeed seed: some Collection<UInt8>) -> [UInt8] {
        let derived = KeyDerivation.hkdfSHA256(secret: Array(seed), salt: [], info: info, byteCount: derivedByteCount)
        return P256OrderReduction.reduce(bigEndian: derived)
    }

    /// The P-256 key-agreement key for `seed`.
    ///
    /// - Parameter seed: The secret; any length (the protocol uses 32 bytes).
    /// - Returns: The private key. The scalar is zero with probability about 2^-256, which BoringSSL
    ///   also rejects; that case traps rather than burden every caller with an error.
    package static func privateKey(fromSeed seed: some Collection<UInt8>) -> P256.KeyAgreement.PrivateKey {
        let scalar = privateScalar(fromSeed: seed)
        guard let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: scalar) else {
            preconditionFailure("seed derives the zero scalar (probability 2^-256)")
        }
        return key
    }
}
