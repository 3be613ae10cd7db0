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

    static let saltLength = 16
    private static let checkAAD = Array("hybrid-authenticator/v1 passphrase check".utf8)
    private static let keyAADPrefix = Array("hybrid-authenticator/v1 credential key".utf8)
    private static let prfAADPrefix = Array("hybrid-authenticator/v1 credential prf secret".utf8)

    /// Derives the key for `passphrase` (Unicode NFC, UTF-8).
    init(passphrase: String, salt: [UInt8], parameters: ScryptParameters) throws(PasskeyStoreError) {
        let normalized = Array(passphrase.precomposedStringWithCanonicalMapping.utf8)
        do {
            key = try KDF.Scrypt.deriveKey(
                from: normalized, salt: salt, outputByteCount: 32,
                rounds: parameters.n, blockSize: parameters.r, parallelism: parameters.p)
        } catch {
            throw .corrupt(reason: "scrypt failed with N=\(parameters.n) r=\(parameters.r) p=\(parameters.p)")
        }
        self.salt = salt
        self.parameters = parameters
    }

    /// A fresh check box (random nonce) for this key.
    func makeCheck(nonce: [UInt8]) throws(PasskeyStoreError) -> [UInt8] {
        try seal([], aad: Self.checkAAD, nonce: nonce)
    }

    /// Whether `check` opens under this key.
    func verify(check: [UInt8]) -> Bool { (try? open(check, aad: Self.checkAAD)) != nil }

    func sealPrivateKey(_ scalar: [UInt8], for metadata: PasskeyMetadata, nonce: [UInt8]) throws(PasskeyStoreError) -> [UInt8] {
        try seal(scalar, aad: Self.credentialAAD(Self.keyAADPrefix, metadata), nonce: nonce)
    }

    func openPrivateKey(_ box: [UInt8], for metadata: PasskeyMetadata) throws(PasskeyStoreError) -> [UInt8] {
        do { return try open(box, aad: Self.credentialAAD(Self.keyAADPrefix, metadata)) } catch {
            throw .corrupt(reason: "the private key of credential \(Hex.encode(metadata.credentialID)) fails authentication")
        }
    }

    /// Seals a prf secret; its associated data differs from the private key's, so the two boxes
    /// cannot be swapped.
    func sealPRFSecret(_ secret: [UInt8], for metadata: PasskeyMetadata, nonce: [UInt8]) throws(PasskeyStoreError) -> [UInt8] {
        try seal(secret, aad: Self.credentialAAD(Self.prfAADPrefix, metadata), nonce: nonce)
    }

    func openPRFSecret(_ box: [UInt8], for metadata: PasskeyMetadata) throws(PasskeyStoreError) -> [UInt8] {
        do { return try open(box, aad: Self.credentialAAD(Self.prfAADPrefix, metadata)) } catch {
            throw .corrupt(reason: "the prf secret of credential \(Hex.encode(metadata.credentialID)) fails authentication")
        }
    }

    /// The associated data binding a sealed secret to its kind, credential, RP and user.
    private static func credentialAAD(_ prefix: [UInt8], _ metadata: PasskeyMetadata) -> [UInt8] {
        prefix + CBOREncoder.encode([.bytes(metadata.credentialID), .text(metadata.rpID), .bytes(metadata.userHandle)])
    }

    private func seal(_ plaintext: [UInt8], aad: [UInt8], nonce: [UInt8]) throws(PasskeyStoreError) -> [UInt8] {
        do {
            let box = try AES.GCM.seal(plaintext, using: key, nonce: try AES.GCM.Nonce(data: nonce), authenticating: aad)
            return Array(box.nonce) + Array(box.ciphertext) + Array(box.tag)
        } catch {
            throw .corrupt(reason: "AES-GCM sealing failed")
        }
    }

    private func open(_ combined: [UInt8], aad: [UInt8]) throws -> [UInt8] {
        Array(try AES.GCM.open(try AES.GCM.SealedBox(combined: combined), using: key, authenticating: aad))
    }
}

/// scrypt cost parameters, stored in the file next to the salt.
public struct ScryptParameters: Hashable, Sendable {
    /// CPU/memory cost, a power of two.
    public var n: Int
    /// Block size.
    public var r: Int
    /// Parallelism.
    public var p: Int

    public init(n: Int, r: Int, p: Int) {
        self.n = n
        self.r = r
        self.p = p
    }

    /// OWASP's recommendation: N = 2^17, r = 8, p = 1 (128 MiB, well under a second on a PC).
    public static let recommended = Self(n: 1 << 17, r: 8, p: 1)
    /// Cheap parameters for tests only.
    public static let insecureFastForTesting = Self(n: 1 << 4, r: 1, p: 1)

    /// Whether the values are usable and bounded (N a power of two ≤ 2^20, r ≤ 32, p ≤ 16), so
    /// a tampered file cannot make opening it use unbounded memory or time.
    var isAcceptable: Bool {
        n >= 2 && n <= 1 << 20 && n & (n - 1) == 0 && (1...32).contains(r) && (1...16).contains(p)
    }
}
