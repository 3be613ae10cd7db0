import Crypto
import HybridCore

/// An ES256 credential public key as a COSE_Key (RFC 9053 §7.1.1, WebAuthn §6.5.1.1):
/// `{1: 2 (kty EC2), 3: -7 (alg ES256), -1: 1 (crv P-256), -2: x (32 bytes), -3: y (32 bytes)}`.
public struct COSEKey: Hashable, Sendable {
    /// The swift-crypto key, for verifying signatures.
    public let publicKey: P256.Signing.PublicKey
    /// The key as an uncompressed SEC1 point (65 bytes, `04 ‖ x ‖ y`).
    public let x963Representation: [UInt8]

    /// COSE key type EC2.
    package static let keyTypeEC2: Int64 = 2
    /// COSE curve P-256.
    package static let curveP256: Int64 = 1

    /// The COSE form of a P-256 signing key.
    public init(_ publicKey: P256.Signing.PublicKey) {
        self.publicKey = publicKey
        self.x963Representation = Array(publicKey.x963Representation)
    }

    /// Equal when the keys are the same point.
    public static func == (a: Self, b: Self) -> Bool { a.x963Representation == b.x963Representation }
    /// Hashes the point.
    public func hash(into hasher: inout Hasher) { hasher.combine(x963Representation) }

    /// The canonical COSE_Key map.
    package var cbor: CBORValue {
        .map([
            CBORMapEntry(1, .int(Self.keyTypeEC2)),
            CBORMapEntry(3, .int(COSEAlgorithm.es256)),
            CBORMapEntry(-1, .int(Self.curveP256)),
            CBORMapEntry(-2, .bytes(Array(x963Representation[1..<33]))),
            CBORMapEntry(-3, .bytes(Array(x963Representation[33..<65]))),
        ])
    }

    /// The canonical COSE_Key bytes.
    public var encoded: [UInt8] { CBOREncoder.encode(cbor) }

    /// Parses an ES256 COSE_Key: kty 2, alg -7, crv 1 are required with these values (other
    /// values are ``CTAPError/unsupportedAlgorithm(field:)``), x and y must be 32 bytes each and
    /// form a point on P-256. Other keys are ignored.
    package init(cbor: CBORValue) throws(CTAPError) {
        let reader = try CTAPMapReader(cbor, path: "credentialPublicKey")
        guard try reader.requiredInt(1, "kty") == Self.keyTypeEC2 else {
            throw .unsupportedAlgorithm(field: reader.fieldPath("kty"))
        }
        guard try reader.requiredInt(3, "alg") == COSEAlgorithm.es256 else {
            throw .unsupportedAlgorithm(field: reader.fieldPath("alg"))
        }
        guard try reader.requiredInt(-1, "crv") == Self.curveP256 else {
            throw .unsupportedAlgorithm(field: reader.fieldPath("crv"))
        }
        let x = try reader.requiredBytes(-2, "x")
        let y = try reader.requiredBytes(-3, "y")
        guard x.count == 32 else { throw .invalidLength(field: reader.fieldPath("x")) }
        guard y.count == 32 else { throw .invalidLength(field: reader.fieldPath("y")) }
        guard let publicKey = try? P256.Signing.PublicKey(x963Representation: [0x04] + x + y) else {
            throw .invalidParameter(field: reader.path)
        }
        self.init(publicKey)
    }

    /// Parses canonical COSE_Key bytes (exactly one CBOR item).
    public init(bytes: some Collection<UInt8>) throws(CTAPError) {
        let value: CBORValue
        do { value = try CBORDecoder.decode(bytes) } catch { throw .invalidCBOR(error) }
        try self.init(cbor: value)
    }
}
