import Crypto

/// The Noise SymmetricState (ck, h, k, n) with P-256, AES-256-GCM and SHA-256 (protocol.md §6.3).
/// Chromium: `Noise`.
///
/// Standard Noise semantics: MixKey and MixKeyAndHash reset the nonce, so in the hybrid patterns
/// every key is used once and the handshake nonce is always 12 zero bytes.
struct NoiseSymmetricState: Sendable {
    private var chainingKey: [UInt8]
    /// The running handshake hash h.
    private(set) var handshakeHash: [UInt8]
    private var cipherKey: SymmetricKey?
    private var nonce: UInt64 = 0

    /// Starts from a protocol name of at most 32 bytes, zero-padded (Noise: a name no longer than
    /// HASHLEN is padded, not hashed).
    init(protocolName: String) {
        let name = Array(protocolName.utf8)
        precondition(name.count <= SHA256.byteCount, "hybrid protocol names fit in HASHLEN")
        handshakeHash = name + [UInt8](repeating: 0, count: SHA256.byteCount - name.count)
        chainingKey = handshakeHash
    }

    /// h = SHA-256(h || data).
    mutating func mixHash(_ data: some Collection<UInt8>) {
        var hasher = SHA256()
        hasher.update(data: handshakeHash)
        hasher.update(data: Array(data))
        handshakeHash = Array(hasher.finalize())
    }

    /// (ck, k) = HKDF(ck, ikm, 2); n = 0.
    mutating func mixKey(_ inputKeyMaterial: some Collection<UInt8>) {
        let output = hkdf(inputKeyMaterial, byteCount: 64)
        chainingKey = Array(output[0..<32])
        setKey(Array(output[32..<64]))
    }

    /// (ck, t, k) = HKDF(ck, ikm, 3); MixHash(t); n = 0.
    mutating func mixKeyAndHash(_ inputKeyMaterial: some Collection<UInt8>) {
        let output = hkdf(inputKeyMaterial, byteCount: 96)
        chainingKey = Array(output[0..<32])
        mixHash(output[32..<64])
        setKey(Array(output[64..<96]))
    }

    /// c = AEAD(k, n, h, plaintext); MixHash(c). Without a key the plaintext passes through.
    mutating func encryptAndHash(_ plaintext: [UInt8]) -> [UInt8] {
        let ciphertext: [UInt8]
        if let cipherKey {
            ciphertext = AEAD.seal(plaintext, key: cipherKey, nonce: currentNonce(), authenticating: handshakeHash)
            nonce += 1
        } else {
            ciphertext = plaintext
        }
        mixHash(ciphertext)
        return ciphertext
    }

    /// The mirror of ``encryptAndHash(_:)``.
    ///
    /// - Throws: ``HandshakeError/authenticationFailed``.
    mutating func decryptAndHash(_ ciphertext: [UInt8]) throws(HandshakeError) -> [UInt8] {
        let plaintext: [UInt8]
        if let cipherKey {
            guard
                let opened = AEAD.open(ciphertext, key: cipherKey, nonce: currentNonce(), authenticating: handshakeHash)
            else { throw .authenticationFailed }
            plaintext = opened
            nonce += 1
        } else {
            plaintext = ciphertext
        }
        mixHash(ciphertext)
        return plaintext
    }

    /// (k1, k2) = HKDF(ck, empty, 2): the initiator's and the responder's write keys.
    func split() -> (initiatorToResponder: SymmetricKey, responderToInitiator: SymmetricKey) {
        let output = hkdf([], byteCount: 64)
        return (SymmetricKey(data: output[0..<32]), SymmetricKey(data: output[32..<64]))
    }

    private mutating func setKey(_ key: [UInt8]) {
        cipherKey = SymmetricKey(data: key)
        nonce = 0
    }

    /// Noise's AESGCM nonce: 4 zero bytes || BE64(n).
    private func currentNonce() -> [UInt8] {
        [0, 0, 0, 0] + [56, 48, 40, 32, 24, 16, 8, 0].map { UInt8(truncatingIfNeeded: nonce >> UInt64($0)) }
    }

    /// Noise §4.3 `HKDF(chaining_key, input_key_material, num_outputs)`: temp_key = HMAC(ck, ikm),
    /// output_i = HMAC(temp_key, output_{i-1} || byte(i)). That is RFC 5869 HKDF with salt = ck and
    /// empty info; written out on HMAC-SHA256 as Noise defines it because a handshake runs it six
    /// times and swift-crypto's generic `HKDF` costs several times more per call.
    private func hkdf(_ inputKeyMaterial: some Collection<UInt8>, byteCount: Int) -> [UInt8] {
        let tempKey = SymmetricKey(
            data: HMAC<SHA256>.authenticationCode(for: Array(inputKeyMaterial), using: SymmetricKey(data: chainingKey)))
        let keyed = HMAC<SHA256>(key: tempKey)  // keyed once, copied for each output
        var output: [UInt8] = []
        output.reserveCapacity(byteCount)
        var previous: [UInt8] = []
        var index: UInt8 = 1
        while output.count < byteCount {
            var hmac = keyed
            hmac.update(data: previous + [index])
            previous = Array(hmac.finalize())
            output += previous
            index += 1
        }
        return Array(output.prefix(byteCount))
    }
}
