import Crypto

/// AES-256-GCM with an explicit 12-byte nonce and the `ciphertext || tag` layout, as
/// both the Noise handshake and the transport crypter use it.
enum AEAD {
    /// GCM tag length.
    static let tagByteCount = 16
    /// GCM nonce length.
    static let nonceByteCount = 12

    /// Returns `ciphertext || tag`.
    static func seal(_ plaintext: [UInt8], key: SymmetricKey, nonce: [UInt8], authenticating ad: [UInt8]) -> [UInt8] {
        precondition(key.bitCount == 256 && nonce.count == nonceByteCount)
        do {
            let box = try AES.GCM.seal(plaintext, using: key, nonce: AES.GCM.Nonce(data: nonce), authenticating: ad)
            return Array(box.ciphertext) + Array(box.tag)
        } catch {
            preconditionFailure("AES-256-GCM seal with a valid key and nonce cannot fail")
        }
    }

    /// Opens `ciphertext || tag`; `nil` if it is shorter than a tag or does not authenticate.
    static func open(
        _ sealed: some Collection<UInt8>,
        key: SymmetricKey,
        nonce: [UInt8],
        authenticating ad: [UInt8]
    ) -> [UInt8]? {
        precondition(key.bitCount == 256 && nonce.count == nonceByteCount)
        let bytes = Array(sealed)
        guard bytes.count >= tagByteCount else { return nil }
        let split = bytes.count - tagByteCount
        do {
            let box = try AES.GCM.SealedBox(
                nonce: AES.GCM.Nonce(data: nonce),
                ciphertext: bytes[..<split],
                tag: bytes[split...]
            )
            return Array(try AES.GCM.open(box, using: key, authenticating: ad))
        } catch {
            return nil
        }
    }
}
