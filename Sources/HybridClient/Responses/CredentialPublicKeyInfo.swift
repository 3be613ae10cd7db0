import HybridCTAP
import HybridCore

/// What `getPublicKey()` and `getPublicKeyAlgorithm()` report for a new credential.
struct CredentialPublicKeyInfo {
    /// COSE algorithm (key 3 of the COSE_Key), or -7 if the key does not say.
    var algorithm: Int64
    /// DER SubjectPublicKeyInfo, for ES256 keys (swift-crypto `derRepresentation`).
    var subjectPublicKeyInfo: [UInt8]?

    init(coseKey: CBORValue) {
        algorithm = coseKey[intKey: 3]?.intValue ?? COSEAlgorithm.es256
        if let key = try? COSEKey(cbor: coseKey) {
            subjectPublicKeyInfo = Array(key.publicKey.derRepresentation)
        } else {
            subjectPublicKeyInfo = nil
        }
    }
}
