import Crypto
import HybridCore

extension VectorCase {
    /// A required P-256 private key (32-byte big-endian scalar).
    func privateKey(_ key: String) throws(VectorMismatch) -> P256.KeyAgreement.PrivateKey {
        let raw = try bytes(key)
        guard let privateKey = try? P256.KeyAgreement.PrivateKey(rawRepresentation: raw) else {
            throw VectorMismatch("\(key) is not a P-256 private key")
        }
        return privateKey
    }

    /// A required P-256 public key (65-byte uncompressed SEC1).
    func publicKey(_ key: String) throws(VectorMismatch) -> P256.KeyAgreement.PublicKey {
        let raw = try bytes(key)
        guard raw.count == 65, let publicKey = try? P256.KeyAgreement.PublicKey(x963Representation: raw) else {
            throw VectorMismatch("\(key) is not an uncompressed P-256 public key")
        }
        return publicKey
    }

    /// A required 32-byte symmetric key.
    func symmetricKey(_ key: String) throws(VectorMismatch) -> SymmetricKey {
        let raw = try bytes(key)
        guard raw.count == 32 else { throw VectorMismatch("\(key) is not 32 bytes") }
        return SymmetricKey(data: raw)
    }

    /// Checks that `privateKeyField`'s public half equals `publicKeyField`, when both are present.
    func expectKeyPair(private privateKeyField: String, public publicKeyField: String) throws(VectorMismatch) {
        guard has(privateKeyField), has(publicKeyField) else { return }
        let derived = Array(try privateKey(privateKeyField).publicKey.x963Representation)
        try Expect.bytes("public key of \(privateKeyField)", derived, try bytes(publicKeyField))
    }
}

extension SymmetricKey {
    /// The raw key bytes, for comparison with vectors.
    var vectorBytes: [UInt8] { withUnsafeBytes { Array($0) } }
}
