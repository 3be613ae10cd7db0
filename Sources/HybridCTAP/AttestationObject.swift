import HybridCore

/// The WebAuthn attestation object (WebAuthn §6.5.4): the canonical CBOR map
/// `{"fmt": text, "attStmt": map, "authData": bytes}` a client builds from a makeCredential
/// response.
public struct AttestationObject: Hashable, Sendable {
    /// The attestation statement format (`fmt`), e.g. `"none"` or `"packed"`.
    public var format: String
    /// The attestation statement (`attStmt`), `{}` for `"none"`.
    public var attestationStatement: CBORValue
    /// The authenticator data (`authData`).
    public var authenticatorData: AuthenticatorData

    /// An attestation object from its three fields.
    public init(format: String, attestationStatement: CBORValue, authenticatorData: AuthenticatorData) {
        self.format = format
        self.attestationStatement = attestationStatement
        self.authenticatorData = authenticatorData
    }

    /// The attestation object of a makeCredential response (its fmt, attStmt and authData).
    public init(_ response: MakeCredentialResponse) {
        self.init(
            format: response.format, attestationStatement: response.attestationStatement,
            authenticatorData: response.authenticatorData)
    }

    /// `"none"` attestation: an empty statement.
    public static func none(_ authenticatorData: AuthenticatorData) -> Self {
        Self(format: AttestationFormat.none, attestationStatement: .map([]), authenticatorData: authenticatorData)
    }

    /// `"packed"` self attestation: `{"alg": -7, "sig": signature}`, where `signature` is the
    /// credential key's DER ES256 signature over authData ‖ clientDataHash (WebAuthn §8.2).
    public static func packedSelf(_ authenticatorData: AuthenticatorData, signature: [UInt8]) -> Self {
        Self(
            format: AttestationFormat.packed,
            attestationStatement: ["alg": .int(COSEAlgorithm.es256), "sig": .bytes(signature)],
            authenticatorData: authenticatorData)
    }

    package var cbor: CBORValue {
        ["fmt": .text(format), "attStmt": attestationStatement, "authData": .bytes(authenticatorData.encoded)]
    }

    /// The canonical bytes (keys in the order fmt, attStmt, authData).
    public var encoded: [UInt8] { CBOREncoder.encode(cbor) }

    /// Parses canonical bytes strictly: all three keys required, attStmt a map, authData strict.
    public init(bytes: some Collection<UInt8>) throws(CTAPError) {
        let reader = try CTAPMapReader(try CTAPResponse.decodeBody(bytes), path: "attestationObject")
        self.init(
            format: try reader.requiredText("fmt", "fmt"),
            attestationStatement: try reader.requiredMap("attStmt", "attStmt").value,
            authenticatorData: try AuthenticatorData(bytes: try reader.requiredBytes("authData", "authData"))
        )
    }
}

/// Attestation statement format identifiers (WebAuthn §8).
package enum AttestationFormat {
    package static let none = "none"
    package static let packed = "packed"
}
