import Crypto
import CryptoExtras

/// The 64-byte key that encrypts and authenticates BLE adverts (protocol.md §3.2).
/// Chromium: `eid_key`, used by `eid::Encrypt` / `eid::Decrypt`.
///
/// Bytes 0–31 are an AES-256 key, bytes 32–63 an HMAC-SHA256 key. An advert is
/// `AES-256(plaintext) || HMAC-SHA256(ciphertext)[0..<4]`, 20 bytes.
package struct EIDKey: Sendable, CustomStringConvertible {
    /// Size in bytes.
    package static let byteCount = 64
    /// Length of the truncated tag.
    static let tagByteCount = 4

    /// The raw key, always ``byteCount`` long.
    package let bytes: [UInt8]

    /// Wraps `bytes`, or returns `nil` unless they are exactly 64 bytes long.
    package init?(bytes: some Collection<UInt8>) {
        guard bytes.count == Self.byteCount else { return nil }
        self.bytes = Array(bytes)
    }

    /// `Derive(secret, salt, eidKey, 64)`: from the QR secret with no salt, or from a link secret
    /// salted with the client nonce.
    package init(deriving secret: some Collection<UInt8>, salt: [UInt8]?) {
        bytes = KeyDerivation.derive(from: secret, salt: salt, purpose: .eidKey, byteCount: Self.byteCount)
    }

    private var aesKey: SymmetricKey { SymmetricKey(data: bytes[0..<32]) }
    private var hmacKey: SymmetricKey { SymmetricKey(data: bytes[32..<64]) }

    /// Encrypts `plaintext` into the 20 bytes of advert service data.
    package func encrypt(_ plaintext: AdvertPlaintext) -> [UInt8] {
        encrypt(block: plaintext.bytes)
    }

    /// Encrypts any 16-byte block (tests use it to build adverts with invalid plaintexts).
    func encrypt(block: [UInt8]) -> [UInt8] {
        precondition(block.count == AdvertPlaintext.byteCount)
        var ciphertext = block
        do {
            try AES.permute(&ciphertext, key: aesKey)
        } catch {
            preconditionFailure("single-block AES-256 with a 32-byte key and a 16-byte block cannot fail")
        }
        return ciphertext + tag(for: ciphertext)
    }

    /// Authenticates and decrypts advert service data, then parses the plaintext.
    ///
    /// Checks, in order: exactly 20 bytes; the tag, compared in constant time; the reserved byte;
    /// the domain ID.
    ///
    /// - Parameter serviceData: The service data under UUID FFF9 or FDE2.
    /// - Throws: ``AdvertError``; every case means "not mine".
    package func decrypt(_ serviceData: some Collection<UInt8>) throws(AdvertError) -> AdvertPlaintext {
        try AdvertPlaintext(bytes: decryptBlock(serviceData))
    }

    /// Authenticates and decrypts advert service data without parsing the plaintext.
    ///
    /// - Returns: The 16 plaintext bytes, whose reserved byte and domain ID are not yet checked.
    /// - Throws: ``AdvertError/invalidLength(_:)`` or ``AdvertError/authenticationFailed``.
    package func decryptBlock(_ serviceData: some Collection<UInt8>) throws(AdvertError) -> [UInt8] {
        let advert = Array(serviceData)
        guard advert.count == AdvertServiceData.advertByteCount else { throw .invalidLength(advert.count) }
        var block = Array(advert[0..<16])
        guard ConstantTime.equal(tag(for: block), advert[16..<20]) else { throw .authenticationFailed }
        do {
            try AES.inversePermute(&block, key: aesKey)
        } catch {
            preconditionFailure("single-block AES-256 with a 32-byte key and a 16-byte block cannot fail")
        }
        return block
    }

    /// Trial decryption for scanning: the plaintext if `serviceData` is a valid advert for this
    /// key, `nil` ("not mine") on any failure.
    package func trialDecrypt(_ serviceData: some Collection<UInt8>) -> AdvertPlaintext? {
        try? decrypt(serviceData)
    }

    private func tag(for ciphertext: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: ciphertext, using: hmacKey).prefix(Self.tagByteCount))
    }

    /// Redacted: never prints key bytes.
    package var description: String { "EIDKey(redacted)" }
}
