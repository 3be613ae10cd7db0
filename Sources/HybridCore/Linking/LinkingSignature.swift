import Crypto

/// Why a linking signature was rejected (protocol.md §7.6).
package enum LinkingSignatureError: Error, Equatable, Sendable {
    /// The signature is not 32 bytes, or not the HMAC the shared key gives over the handshake hash.
    case invalidSignature
}

/// The linking signature that binds a phone's identity key to a handshake (protocol.md §2, §7.6).
/// Chromium: `CalculatePairingSignature` / `VerifyPairingSignature`.
///
/// `HMAC-SHA256(key = ECDH-X(own private key, peer public key), message = handshake hash)`. The
/// phone computes it with its identity key and the client's QR identity key; the client verifies
/// it with the mirror pair.
package enum LinkingSignature {
    /// Length of a signature.
    package static let byteCount = 32

    /// Computes the signature.
    ///
    /// - Parameters:
    ///   - privateKey: This side's identity key.
    ///   - peerPublicKey: The other side's identity public key.
    ///   - handshakeHash: The Noise handshake hash of the connection.
    /// - Returns: 32 bytes.
    package static func compute(
        privateKey: P256.KeyAgreement.PrivateKey,
        peerPublicKey: P256.KeyAgreement.PublicKey,
        handshakeHash: some Collection<UInt8>
    ) -> [UInt8] {
        let key = SymmetricKey(data: privateKey.sharedXCoordinate(with: peerPublicKey))
        return Array(HMAC<SHA256>.authenticationCode(for: Array(handshakeHash), using: key))
    }

    /// Verifies `signature` in constant time.
    ///
    /// - Throws: ``LinkingSignatureError/invalidSignature`` if it is not 32 bytes or does not match.
    package static func verify(
        _ signature: some Collection<UInt8>,
        privateKey: P256.KeyAgreement.PrivateKey,
        peerPublicKey: P256.KeyAgreement.PublicKey,
        handshakeHash: some Collection<UInt8>
    ) throws(LinkingSignatureError) {
        guard signature.count == byteCount else { throw .invalidSignature }
        let expected = compute(privateKey: privateKey, peerPublicKey: peerPublicKey, handshakeHash: handshakeHash)
        guard ConstantTime.equal(expected, signature) else { throw .invalidSignature }
    }
}
