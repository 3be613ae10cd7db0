import Crypto
import CryptoExtras
import Foundation
import HybridCore

/// Passphrase protection of a passkey store: scrypt (memory-hard) derives an AES-256-GCM key
/// from the passphrase and a random salt; private keys are sealed under it with the credential
/// bound in as associated data, and a check box proves the passphrase.
struct StoreEncryption: Sendable {
    let key: SymmetricKey
    let salt: [UInt8]
    let parameters: ScryptParameters

    /// The key of the store's MAC (``StoreFileMAC``): HKDF-SHA256 of the scrypt output, so the
    /// AES key (the scrypt output itself, as in format 1) is never used for anything else.
    let macKey: SymmetricKey

    static let saltLength = 16
    private static let checkAAD = Array("hybrid-authenticator/v1 passphrase check".utf8)
    private static let macKeyInfo = Array("hybrid-authenticator/v2 store MAC key".utf8)

    /// Derives the keys for `passphrase` (Unicode NFC, UTF-8).
    /// - Throws: ``PasskeyStoreError/scryptParametersOutOfRange(_:)`` before any work when
    ///   `parameters` is not acceptable.
    init(passphrase: String, salt: [UInt8], parameters: ScryptParameters) throws(PasskeyStoreError) {
        guard parameters.isAcceptable else { throw .scryptParametersOutOfRange(parameters) }
        let normalized = Array(passphrase.precomposedStringWithCanonicalMapping.utf8)
        do {
            key = try KDF.Scrypt.deriveKey(
                from: normalized, salt: salt, outputByteCount: 32,
                rounds: parameters.n, blockSize: parameters.r, parallelism: parameters.p)
        } catch {
            throw .corrupt(reason: "scrypt failed with N=\(parameters.n) r=\(parameters.r) p=\(parameters.p)")
        }
        macKey = HKDF<SHA256>.deriveKey(inputKeyMaterial: key, info: Self.macKeyInfo, outputByteCount: 32)
        self.salt = salt
        self.parameters = parameters
    }

    /// A fresh check box (random nonce) for this key.
    func makeCheck(nonce: [UInt8]) throws(PasskeyStoreError) -> [UInt8] {
        try seal([], aad: Self.checkAAD, nonce: nonce)
    }

    /// Whether `check` opens under this key.
    func verify(check: [UInt8]) -> Bool { (try? open(check, aad: Self.checkAAD)) != nil }

    /// Seals a private key for a file of the current format version.
    func sealPrivateKey(_ scalar: [UInt8], for metadata: PasskeyMetadata, nonce: [UInt8]) throws(PasskeyStoreError)
        -> [UInt8]
    {
        try seal(scalar, aad: Self.keyAAD(metadata, version: StoreFileDocument.currentVersion), nonce: nonce)
    }

    /// Opens a private key read from a file of format `version`.
    func openPrivateKey(
        _ box: [UInt8], for metadata: PasskeyMetadata, version: Int
    ) throws(PasskeyStoreError) -> [UInt8] {
        do { return try open(box, aad: Self.keyAAD(metadata, version: version)) } catch {
            throw .authenticationFailed
        }
    }

    /// The associated data binding a sealed key to its credential, RP, user and the format
    /// version: a key sealed for format 2 does not open as format 1, so a file downgraded to the
    /// unauthenticated format 1 fails (only a store with no passkeys could be downgraded).
    private static func keyAAD(_ metadata: PasskeyMetadata, version: Int) -> [UInt8] {
        credentialAAD("credential key", metadata, version: version)
    }

    /// Seals a prf secret for a file of the current format version. Its associated data names
    /// another kind than the private key's, so the two boxes cannot be swapped.
    func sealPRFSecret(_ secret: [UInt8], for metadata: PasskeyMetadata, nonce: [UInt8]) throws(PasskeyStoreError)
        -> [UInt8]
    {
        try seal(
            secret,
            aad: Self.credentialAAD("credential prf secret", metadata, version: StoreFileDocument.currentVersion),
            nonce: nonce)
    }

    /// Opens a prf secret read from a file of format `version`.
    func openPRFSecret(_ box: [UInt8], for metadata: PasskeyMetadata, version: Int) throws(PasskeyStoreError) -> [UInt8]
    {
        do { return try open(box, aad: Self.credentialAAD("credential prf secret", metadata, version: version)) } catch
        {
            throw .authenticationFailed
        }
    }

    /// The associated data binding a sealed secret to its kind, the format version, and its
    /// credential, RP and user.
    private static func credentialAAD(_ kind: String, _ metadata: PasskeyMetadata, version: Int) -> [UInt8] {
        Array("hybrid-authenticator/v\(version) \(kind)".utf8)
            + CBOREncoder.encode([.bytes(metadata.credentialID), .text(metadata.rpID), .bytes(metadata.userHandle)])
    }

    func seal(_ plaintext: [UInt8], aad: [UInt8], nonce: [UInt8]) throws(PasskeyStoreError) -> [UInt8] {
        do {
            let box = try AES.GCM.seal(
                plaintext, using: key, nonce: try AES.GCM.Nonce(data: nonce), authenticating: aad)
            return Array(box.nonce) + Array(box.ciphertext) + Array(box.tag)
        } catch {
            throw .corrupt(reason: "AES-GCM sealing failed")
        }
    }

    func open(_ combined: [UInt8], aad: [UInt8]) throws -> [UInt8] {
        Array(try AES.GCM.open(try AES.GCM.SealedBox(combined: combined), using: key, authenticating: aad))
    }
}

/// scrypt cost parameters, stored in the file next to the salt.
///
/// Accepted range (`isAcceptable`), checked before any derivation, for a new store and for the
/// numbers read from a file (which cannot be authenticated before the key exists):
///
/// | rule | why |
/// |---|---|
/// | N a power of two, 2^14 ≤ N ≤ 2^20 | scrypt needs a power of two; below 2^14 is weaker than the scrypt paper's interactive setting |
/// | 1 ≤ r ≤ 8 | 8 is the standard block size; larger r only multiplies memory |
/// | 1 ≤ p ≤ 4 | p multiplies time only; 4 bounds an opening at 8× the recommended work |
/// | 16 MiB ≤ 128·N·r ≤ 256 MiB | at least the paper's 16 MiB against GPU guessing, at most 256 MiB so a tampered file cannot exhaust memory |
public struct ScryptParameters: Hashable, Sendable {
    /// CPU/memory cost, a power of two.
    public var n: Int
    /// Block size.
    public var r: Int
    /// Parallelism.
    public var p: Int

    /// scrypt parameters.
    public init(n: Int, r: Int, p: Int) {
        self.n = n
        self.r = r
        self.p = p
    }

    /// OWASP's recommendation: N = 2^17, r = 8, p = 1 (128 MiB, well under a second on a PC).
    public static let recommended = Self(n: 1 << 17, r: 8, p: 1)
    /// The cheapest accepted parameters, N = 2^14, r = 8, p = 1 (16 MiB): for tests.
    package static let insecureFastForTesting = Self(n: 1 << 14, r: 8, p: 1)

    /// Whether these cost less memory (128·N·r, and so also less work) than ``recommended``: a
    /// store made with them is cheaper to guess passphrases against, fit for tests only.
    package var isBelowRecommended: Bool { n * r < Self.recommended.n * Self.recommended.r }

    /// Smallest and largest memory scrypt may use, 128·N·r bytes.
    package static let memoryRange = (16 << 20)...(256 << 20)

    /// Whether the values are in the documented range (see the type's discussion).
    package var isAcceptable: Bool {
        guard (1 << 14...1 << 20).contains(n), n & (n - 1) == 0, (1...8).contains(r), (1...4).contains(p) else {
            return false
        }
        return Self.memoryRange.contains(128 * n * r)
    }
}
