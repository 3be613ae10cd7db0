import Crypto

/// The private key of a CXF passkey: a DER `OneAsymmetricKey` (PKCS#8, RFC 5958 §2), which CXF 1.0
/// "Passkey" (member `key`) requires, read far enough to tell its algorithm, then handed
/// to swift-crypto for P-256.
///
/// ```
/// OneAsymmetricKey ::= SEQUENCE { version INTEGER (0 | 1), privateKeyAlgorithm AlgorithmIdentifier,
///                                 privateKey OCTET STRING, [0] attributes, [1] publicKey }
/// AlgorithmIdentifier ::= SEQUENCE { algorithm OBJECT IDENTIFIER, parameters ANY OPTIONAL }
/// ```
enum PKCS8PrivateKey {
    /// id-ecPublicKey (1.2.840.10045.2.1), RFC 5480 §2.1.1.
    static let ecPublicKey: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    /// secp256r1 / prime256v1 (1.2.840.10045.3.1.7), RFC 5480 §2.1.1.1.
    static let prime256v1: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07]
    /// Names of the other algorithms a passkey manager may export, for the error message.
    static let knownAlgorithms: [[UInt8]: String] = [
        [0x2B, 0x65, 0x70]: "Ed25519",
        [0x2B, 0x65, 0x71]: "Ed448",
        [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]: "RSA",
        [0x2B, 0x81, 0x04, 0x00, 0x22]: "P-384 (secp384r1)",
        [0x2B, 0x81, 0x04, 0x00, 0x23]: "P-521 (secp521r1)",
    ]

    /// The P-256 signing key in `der`.
    /// - Throws: ``CXFError/invalidPrivateKey(field:reason:)`` when `der` is not a PKCS#8 structure or
    ///   its key does not parse; ``CXFError/unsupportedKeyAlgorithm(field:algorithm:)`` for another algorithm.
    static func p256(_ der: [UInt8], field: String) throws(CXFError) -> P256.Signing.PrivateKey {
        func invalid(_ reason: String) -> CXFError { .invalidPrivateKey(field: field, reason: reason) }
        var outer = DERReader(der)
        guard var key = outer.sequence(), outer.isAtEnd else { throw invalid("not one DER SEQUENCE") }
        guard let version = key.content(tag: 0x02), version == [0x00] || version == [0x01] else {
            throw invalid("version is not 0 or 1")
        }
        guard var algorithm = key.sequence(), let oid = algorithm.content(tag: 0x06) else {
            throw invalid("no AlgorithmIdentifier")
        }
        guard key.content(tag: 0x04) != nil else { throw invalid("no privateKey OCTET STRING") }
        guard oid == ecPublicKey else {
            throw .unsupportedKeyAlgorithm(field: field, algorithm: knownAlgorithms[oid] ?? "OID \(dotted(oid))")
        }
        guard let curve = algorithm.content(tag: 0x06) else { throw invalid("an EC key without a named curve") }
        guard curve == prime256v1 else {
            let name = knownAlgorithms[curve] ?? "EC curve OID \(dotted(curve))"
            throw .unsupportedKeyAlgorithm(field: field, algorithm: name)
        }
        do {
            return try P256.Signing.PrivateKey(derRepresentation: der)
        } catch {
            throw invalid("the P-256 key does not parse")
        }
    }

    /// The dotted form of an OID's content bytes (X.690 §8.19), for messages.
    static func dotted(_ oid: [UInt8]) -> String {
        guard let first = oid.first else { return "(empty)" }
        var parts = [first < 80 ? "\(first / 40)" : "2", "\(first < 80 ? first % 40 : first - 80)"]
        var value: UInt64 = 0
        for byte in oid.dropFirst() {
            guard value >> 56 == 0 else { return "(too long)" }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 {
                parts.append("\(value)")
                value = 0
            }
        }
        return parts.joined(separator: ".")
    }
}

/// Reads definite-length DER elements (X.690 §8.1) one after another; `nil` on anything else.
struct DERReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    /// The content of the next element if it is a SEQUENCE, as a reader of its elements.
    mutating func sequence() -> DERReader? { content(tag: 0x30).map(DERReader.init) }

    /// The content bytes of the next element if its tag is `tag`.
    mutating func content(tag: UInt8) -> [UInt8]? {
        guard offset + 2 <= bytes.count, bytes[offset] == tag else { return nil }
        var index = offset + 1
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            // Long form: 1–3 length bytes (a key is far below 16 MiB), no leading zero, and not
            // for a length the short form could say (DER, X.690 §10.1).
            guard (1...3).contains(count), index + count <= bytes.count, bytes[index] != 0 else { return nil }
            length = bytes[index..<index + count].reduce(0) { $0 << 8 | Int($1) }
            guard length >= 0x80 else { return nil }
            index += count
        }
        guard length <= bytes.count - index else { return nil }
        offset = index + length
        return Array(bytes[index..<index + length])
    }
}
