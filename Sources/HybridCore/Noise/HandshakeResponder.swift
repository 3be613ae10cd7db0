import Crypto

/// The phone's side of the Noise handshake (protocol.md §6.2). Chromium: `RespondToHandshake`.
package enum HandshakeResponder {
    /// The pattern and the static key it needs.
    package enum Pattern: Sendable {
        /// QR flow, `Noise_KNpsk0_P256_AESGCM_SHA256`: the client's QR identity key, decompressed
        /// from QR key 0.
        case knpsk0(initiatorStaticKey: P256.KeyAgreement.PublicKey)
        /// Linked flow, `Noise_NKpsk0_P256_AESGCM_SHA256`: the phone's own identity key.
        case nkpsk0(staticKey: P256.KeyAgreement.PrivateKey)

        var kind: NoiseHandshakeKind {
            switch self {
            case .knpsk0: return .knpsk0
            case .nkpsk0: return .nkpsk0
            }
        }

        /// The Noise protocol name.
        package var protocolName: String { kind.protocolName }
    }

    /// Processes msg1 and builds msg2.
    ///
    /// Checks, in order: msg1 is at least 65 bytes; its first 65 bytes are a valid point; the
    /// payload decrypts; it is empty.
    ///
    /// - Parameters:
    ///   - message1: The client's first message.
    ///   - pattern: KNpsk0 (QR) or NKpsk0 (linked), with its static key.
    ///   - psk: The PSK derived from this phone's advert plaintext.
    ///   - ephemeralKey: A fresh key for this handshake only.
    /// - Returns: msg2 (81 bytes) and the handshake result.
    /// - Throws: ``HandshakeError``.
    package static func respond(
        to message1: some Collection<UInt8>,
        pattern: Pattern,
        psk: PSK,
        ephemeralKey: P256.KeyAgreement.PrivateKey
    ) throws(HandshakeError) -> (message2: [UInt8], result: HandshakeResult) {
        let message = Array(message1)
        let pointByteCount = P256.KeyAgreement.PublicKey.uncompressedByteCount
        guard message.count >= pointByteCount else { throw .invalidMessageLength(message.count) }
        let pointBytes = message[0..<pointByteCount]
        guard let initiatorEphemeral = P256.KeyAgreement.PublicKey(uncompressedBytes: pointBytes) else {
            throw .invalidPoint
        }

        var state: NoiseSymmetricState
        switch pattern {
        case .knpsk0(let initiatorStaticKey):
            state = pattern.kind.initialState(preMessageStaticKey: initiatorStaticKey, psk: psk)
        case .nkpsk0(let staticKey):
            state = pattern.kind.initialState(preMessageStaticKey: staticKey.publicKey, psk: psk)
        }
        state.mixHash(pointBytes)
        state.mixKey(pointBytes)
        if case .nkpsk0(let staticKey) = pattern {
            state.mixKey(staticKey.sharedXCoordinate(with: initiatorEphemeral))  // es
        }
        let payload = try state.decryptAndHash(Array(message[pointByteCount...]))
        guard payload.isEmpty else { throw .nonEmptyPayload }

        let ephemeralPublic = ephemeralKey.publicKey.uncompressedBytes
        state.mixHash(ephemeralPublic)
        state.mixKey(ephemeralPublic)
        state.mixKey(ephemeralKey.sharedXCoordinate(with: initiatorEphemeral))  // ee
        if case .knpsk0(let initiatorStaticKey) = pattern {
            state.mixKey(ephemeralKey.sharedXCoordinate(with: initiatorStaticKey))  // se
        }
        let ciphertext = state.encryptAndHash([])
        return (ephemeralPublic + ciphertext, HandshakeResult(state: state))
    }
}
