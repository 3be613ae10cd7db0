import Crypto

/// The client's side of the Noise handshake (protocol.md §6.2). Chromium: `HandshakeInitiator`.
///
/// Creating the initiator computes msg1; ``processMessage2(_:)`` then completes the handshake. The
/// ephemeral key is a parameter so that tests and vectors can pin it.
package struct HandshakeInitiator: Sendable {
    /// The pattern and the static key it needs.
    package enum Pattern: Sendable {
        /// QR flow, `Noise_KNpsk0_P256_AESGCM_SHA256`: the client's QR identity key, whose public
        /// half the phone read from the QR code.
        case knpsk0(identityKey: P256.KeyAgreement.PrivateKey)
        /// Linked flow, `Noise_NKpsk0_P256_AESGCM_SHA256`: the phone's identity key from linking.
        case nkpsk0(responderStaticKey: P256.KeyAgreement.PublicKey)

        var kind: NoiseHandshakeKind {
            switch self {
            case .knpsk0: return .knpsk0
            case .nkpsk0: return .nkpsk0
            }
        }

        /// The Noise protocol name.
        package var protocolName: String { kind.protocolName }
    }

    private let pattern: Pattern
    private let ephemeralKey: P256.KeyAgreement.PrivateKey
    private let state: NoiseSymmetricState
    private let message1: [UInt8]

    /// Prepares msg1.
    ///
    /// - Parameters:
    ///   - pattern: KNpsk0 (QR) or NKpsk0 (linked), with its static key.
    ///   - psk: The PSK derived from the advert plaintext.
    ///   - ephemeralKey: A fresh key for this handshake only.
    package init(pattern: Pattern, psk: PSK, ephemeralKey: P256.KeyAgreement.PrivateKey) {
        let kind = pattern.kind
        var state: NoiseSymmetricState
        switch pattern {
        case .knpsk0(let identityKey):
            state = kind.initialState(preMessageStaticKey: identityKey.publicKey, psk: psk)
        case .nkpsk0(let responderStaticKey):
            state = kind.initialState(preMessageStaticKey: responderStaticKey, psk: psk)
        }
        let ephemeralPublic = ephemeralKey.publicKey.uncompressedBytes
        state.mixHash(ephemeralPublic)
        state.mixKey(ephemeralPublic)
        if case .nkpsk0(let responderStaticKey) = pattern {
            state.mixKey(ephemeralKey.sharedXCoordinate(with: responderStaticKey))  // es
        }
        let ciphertext = state.encryptAndHash([])
        self.pattern = pattern
        self.ephemeralKey = ephemeralKey
        self.state = state
        self.message1 = ephemeralPublic + ciphertext
    }

    /// msg1, 81 bytes: the ephemeral public key and the tag of the empty payload.
    package func makeMessage1() -> [UInt8] { message1 }

    /// Processes the phone's msg2 and completes the handshake.
    ///
    /// Checks, in order: exactly 81 bytes; a valid point; the payload decrypts; it is empty.
    ///
    /// - Returns: The traffic keys and handshake hash.
    /// - Throws: ``HandshakeError``.
    package func processMessage2(_ message2: some Collection<UInt8>) throws(HandshakeError) -> HandshakeResult {
        let message = Array(message2)
        guard message.count == noiseHandshakeMessageByteCount else { throw .invalidMessageLength(message.count) }
        let pointBytes = message[0..<P256.KeyAgreement.PublicKey.uncompressedByteCount]
        guard let responderEphemeral = P256.KeyAgreement.PublicKey(uncompressedBytes: pointBytes) else {
            throw .invalidPoint
        }
        var state = self.state
        state.mixHash(pointBytes)
        state.mixKey(pointBytes)
        state.mixKey(ephemeralKey.sharedXCoordinate(with: responderEphemeral))  // ee
        if case .knpsk0(let identityKey) = pattern {
            state.mixKey(identityKey.sharedXCoordinate(with: responderEphemeral))  // se
        }
        let payload = try state.decryptAndHash(Array(message[pointBytes.endIndex...]))
        guard payload.isEmpty else { throw .nonEmptyPayload }
        return HandshakeResult(state: state)
    }
}
